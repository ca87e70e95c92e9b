package topicdata

import "testing"

// TestTrainingClass: HuffPost's HOME & LIVING lists of what streams where
// are counted as Entertainment for training; its home records, other
// sets' documents and every other class keep their class.
func TestTrainingClass(t *testing.T) {
	for _, c := range []struct {
		d    Doc
		want string
	}{
		{Doc{ID: "huffpost/12", Class: "Home&Garden", Text: "The Most Popular Movies On Netflix Right Now Besides 'The Call'."}, "Entertainment"},
		{Doc{ID: "huffpost/13", Class: "Home&Garden", Text: "New On Hulu This Month: the shows to stream."}, "Entertainment"},
		{Doc{ID: "huffpost/14", Class: "Home&Garden", Text: "Small-But-Mighty Closet Organizers To Maximize Storage."}, "Home&Garden"},
		{Doc{ID: "huffpost/15", Class: "Entertainment", Text: "New on Netflix: the films to watch."}, "Entertainment"},
		{Doc{ID: "huffpost/16", Class: "BusinessAndFinance", Text: "Netflix shares fall after it loses subscribers."}, "BusinessAndFinance"},
		{Doc{ID: "bbc/tech/001", Class: "Technology&Computing", Text: "Streaming video grows."}, "Technology&Computing"},
	} {
		if got := TrainingClass(c.d); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.d.Class, c.d.Text, got, c.want)
		}
	}
}
