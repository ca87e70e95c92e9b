package openaiapi

import (
	"io"
	"net/http"

	"github.com/earshot-dev/earshot/internal/httpguard"
)

// body returns r.Body behind a read deadline that moves BodyIdleTimeout
// ahead each time bytes arrive (httpguard.IdleBody, the guard httpapi
// uses too).
func (h *Handler) body(w http.ResponseWriter, r *http.Request) io.ReadCloser {
	return httpguard.IdleBody(w, r, h.cfg.BodyIdleTimeout)
}

// capReader reads at most n bytes of r, and notes whether r had more and
// the error r ended with, if not io.EOF (a body cut off mid-file), so that
// such a file is refused whatever the BlobStore makes of the error.
type capReader struct {
	r    io.Reader
	n    int64
	over bool
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		c.over = true
		return 0, errOverCap
	}
	if int64(len(p)) > c.n+1 {
		p = p[:c.n+1]
	}
	n, err := c.r.Read(p)
	if c.n -= int64(n); c.n < 0 {
		c.over = true
		return n, errOverCap
	}
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

var errOverCap = &Error{Status: http.StatusRequestEntityTooLarge, Type: TypeInvalidRequest, Param: "file", Message: "The file is too large."}
