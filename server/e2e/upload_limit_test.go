package e2e

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

// TestOversizedUploadThroughSDK: an upload over EARSHOT_MAX_UPLOAD_BYTES
// is 413 with a JSON error, which the official Go SDK surfaces as an
// APIError carrying the status and the limit in its message (it reads an
// error body only when it is application/json, so the spec's plain-text
// 422 would reach it as an empty message). The spec's 422 with a plain
// text body stays for a failed upload (an empty body).
func TestOversizedUploadThroughSDK(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), freeAddr(t), "EARSHOT_API_KEYS="+keyK1+":p1", "EARSHOT_MAX_UPLOAD_BYTES=65536")
	c := client(s, keyK1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, size := range []int{65537, 1 << 20} {
		_, err := c.Upload(ctx, bytes.NewReader(make([]byte, size)))
		var apiErr aai.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 413 || !strings.Contains(apiErr.Message, "limit of 65536 bytes") {
			t.Errorf("%d bytes: %T %v (status %d), want a 413 APIError naming the limit", size, err, err, apiErr.Status)
		}
	}
	if _, err := c.Upload(ctx, bytes.NewReader(make([]byte, 65536))); err != nil {
		t.Errorf("an upload of exactly the limit: %v", err)
	}
	r := callAPI(t, "POST", s.URL+"/v2/upload", keyK1, "", nil)
	if r.status != 422 || !strings.HasPrefix(r.ctype, "text/plain") || !strings.Contains(string(r.body), "empty") {
		t.Errorf("an empty upload: %d %s %q, want 422 with a plain-text reason", r.status, r.ctype, r.body)
	}
}
