// Package nereval holds the external evaluation of the named entities that
// entity_detection reports (package transcribe/pii's detector) on the
// CoNLL-2003 English test set (Tjong Kim Sang and De Meulder, 2003; Reuters
// news, 231 documents, 3,453 sentences). The Reuters texts may not be
// redistributed, so nothing is committed: conll_test.go reads the set in
// its usual four-column form from the file EARSHOT_CONLL_DATA names (a
// copy is data/conll2003/test.txt of github.com/israelcamp/T5-For-NER,
// commit 9f817ecb8bb3bf91eb239a9562067a9daccd5814) and skips without it.
//
// Measured with the detector of commit 7b0720b (EARSHOT_CONLL_DATA=FILE
// go test -v ./internal/nereval), exact spans, micro-averaged:
//
//	             cased                 lower-cased
//	        P     R     F1         P     R     F1
//	PER   0.753 0.253 0.379      0.191 0.058 0.088
//	LOC   0.724 0.668 0.695      0.743 0.649 0.693
//	ORG   0.842 0.029 0.056      0.845 0.030 0.057
//	all   0.734 0.318 0.443      0.611 0.247 0.352   (target: F1 >= 0.80 cased)
package nereval
