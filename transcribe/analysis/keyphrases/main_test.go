package keyphrases

import (
	"os"
	"testing"

	"github.com/earshot-dev/earshot/transcribe/analysis/nlp/nlptest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	nlptest.Close()
	os.Exit(code)
}
