package main

import (
	"context"
	"fmt"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

// pollFinal polls transcript id every 200 ms until it is completed or
// error (the SDK's Wait backs off to a minute between polls).
func pollFinal(ctx context.Context, c *aai.Client, id string) (aai.Transcript, error) {
	return pollUntil(ctx, c, id, func(tr aai.Transcript) bool { return tr.Status == "completed" || tr.Status == "error" })
}

// pollUntil polls transcript id every 200 ms until done(it) holds.
func pollUntil(ctx context.Context, c *aai.Client, id string, done func(aai.Transcript) bool) (aai.Transcript, error) {
	for {
		tr, err := c.Transcripts.Get(ctx, id)
		if err == nil && done(tr) {
			return tr, nil
		}
		select {
		case <-ctx.Done():
			return tr, fmt.Errorf("transcript %s: status %q after waiting: %v (last error %v)", id, tr.Status, ctx.Err(), err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
