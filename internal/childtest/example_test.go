package childtest_test

import (
	"fmt"
	"testing"

	"github.com/earshot-dev/earshot/internal/childtest"
)

// A test whose body calls into a C library runs it in a child process: a
// crash there fails this test with "child died with SIGSEGV ..." and the
// crash report, and the rest of the test binary carries on.
func ExampleRun() {
	// In a _test.go file:
	_ = func(t *testing.T) {
		childtest.Run(t, func(t *testing.T) {
			// ... code that calls native libraries ...
		})
	}
	fmt.Println(childtest.RunPattern("TestRecognize/boost digits"))
	// Output: ^TestRecognize$/^boost digits$
}
