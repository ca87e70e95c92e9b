package keyphrases_test

import (
	"fmt"
	"strings"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/keyphrases"
)

func ExampleExtract() {
	text := "Honey bees pollinate a third of our crops. Beekeepers keep losing bee colonies. " +
		"Pesticides weaken honey bees, and mites spread viruses through bee colonies. " +
		"Farmers now plant wild flowers and use fewer pesticides, and the bee colonies recover."
	var ws []transcribe.Word
	for i, w := range strings.Fields(text) {
		ws = append(ws, transcribe.Word{Text: w, Start: int64(i) * 300, End: int64(i)*300 + 250})
	}
	res, err := keyphrases.Extract(ws, keyphrases.Options{MaxResults: 4})
	if err != nil {
		panic(err)
	}
	for _, h := range res {
		fmt.Printf("%s (count %d, first at %d ms)\n", h.Text, h.Count, h.Timestamps[0].Start)
	}
	// Output:
	// bee colonies (count 3, first at 3300 ms)
	// honey bees (count 2, first at 0 ms)
	// pesticides (count 2, first at 3900 ms)
	// plant wild flowers (count 1, first at 7800 ms)
}
