package topics

import (
	"math"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/topics/nb"
	"github.com/earshot-dev/earshot/transcribe/analysis/topics/topicdata"
)

// TestFamilyStyles checks that model classes named "<family>@<style>"
// are read as one family whose log-likelihood mixes its styles'.
func TestFamilyStyles(t *testing.T) {
	t.Parallel()
	var names []string
	var members [][]string
	for _, c := range topicdata.Classes {
		names, members = append(names, c.Name), append(members, c.Members)
	}
	names, members = append(names, "Sports"+styleSep+"usenet"), append(members, []string{"Sports"})
	tr := nb.NewTrainer(names, members)
	for _, c := range topicdata.Classes {
		if err := tr.Add(c.Name, []string{"common", c.Name}, 3); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Add("Sports@usenet", []string{"common", "puck"}, 3); err != nil {
		t.Fatal(err)
	}
	fm, err := newFamilyModel(classifier(t).p.tx, tr.Model(0.3, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(fm.families) != len(topicdata.Classes) || fm.familyOf[len(names)-1] != 1 || fm.families[1] != "Sports" {
		t.Fatalf("families %v, familyOf %v", fm.families, fm.familyOf)
	}
	ll, _ := fm.m.LogLikelihoods([]string{"puck"})
	mix := fm.mixture(ll)
	if want := math.Log((math.Exp(ll[1]) + math.Exp(ll[len(ll)-1])) / 2); math.Abs(mix[1]-want) > 1e-9 {
		t.Fatalf("Sports mixture %v, want %v", mix[1], want)
	}
	if mix[1] <= mix[0] {
		t.Fatalf("\"puck\": Sports %v not above NewsAndPolitics %v", mix[1], mix[0])
	}
	bad := nb.NewTrainer([]string{"Sports", "Sports@usenet"}, [][]string{{"Sports"}, {"Pets"}})
	if _, err := newFamilyModel(classifier(t).p.tx, bad.Model(0.3, 0, 1)); err == nil {
		t.Fatal("styles of one family with different members: no error")
	}
}
