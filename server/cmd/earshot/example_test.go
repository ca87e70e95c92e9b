package main

import (
	"context"
	"fmt"
	"os"
)

// A bad parameter is reported as one line naming the flag, with exit code
// 2, before anything is uploaded.
func Example_usageError() {
	code := run(context.Background(), []string{"transcribe", "meeting.m4a", "--redact-pii"}, nil, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// earshot: --redact-pii-policies: is required when --redact-pii is true
	// exit 2
}

// Flags may follow the file; each parameter is checked by the server's own
// rules.
func Example_parameterRange() {
	code := run(context.Background(), []string{"transcribe", "meeting.m4a", "--speakers-expected", "12"}, nil, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// earshot: --speakers-expected: must be between 1 and 10, got 12
	// exit 2
}
