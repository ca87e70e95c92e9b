package lemur

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/earshot-dev/earshot/internal/wire"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
)

// apiError is an answer to the client: a status and a message of ours.
type apiError struct {
	status     int
	msg        string
	retryAfter time.Duration // > 0: a Retry-After header
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	wire.WriteJSON(w, status, map[string]string{"error": msg})
}

// Errors of our own about the model's answers.
var (
	// errUnusable: a complete answer that is not what was asked for (no
	// text once cleaned, answers that are not the JSON asked for).
	errUnusable = errors.New("the language model's answer could not be used")
	// errRequestTimeout is the cause of a request's context when
	// Config.RequestTimeout passes.
	errRequestTimeout = errors.New("lemur: request timed out")
)

// isContextOverflow reports whether a model error says the prompt was
// longer than the model's context: llama-server's 400
// exceed_context_size_error, OpenAI's and vLLM's 400 "maximum context
// length", Ollama's and LocalAI's messages naming the context.
func isContextOverflow(err error) bool {
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest && ae.StatusCode != http.StatusRequestEntityTooLarge {
		return false
	}
	m := strings.ToLower(ae.Type + " " + ae.Message)
	return strings.Contains(m, "context") || strings.Contains(m, "too long") || strings.Contains(m, "too many tokens")
}

// serverSays is the model server's own message, made plain and short, for
// an answer to the client.
func serverSays(ae *llm.APIError) string {
	m := strings.Join(strings.Fields(llm.PlainText(ae.Message)), " ")
	if len(m) > 200 {
		m = m[:200] + "…"
	}
	s := strconv.Itoa(ae.StatusCode)
	if ae.Type != "" {
		s += " " + strings.Join(strings.Fields(llm.PlainText(ae.Type)), " ")
	}
	if m != "" {
		s += ": " + m
	}
	return s
}

// classify turns an error of a LeMUR request into the client's answer.
// ok false means the client is gone: nothing to answer.
func (h *Handler) classify(ctx context.Context, err error, maxOutput int) (e *apiError, ok bool) {
	if errors.As(err, &e) {
		return e, true
	}
	var ae *llm.APIError
	switch {
	case errors.Is(context.Cause(ctx), errRequestTimeout):
		return &apiError{status: http.StatusGatewayTimeout, msg: fmt.Sprintf("The LeMUR request took longer than %v and was stopped", h.cfg.RequestTimeout)}, true
	case ctx.Err() != nil:
		return nil, false // the client went away
	case errors.Is(err, llm.ErrTimeout):
		return &apiError{status: http.StatusGatewayTimeout, msg: fmt.Sprintf("The language model did not answer within %v", h.cfg.ModelTimeout)}, true
	case errors.As(err, &ae):
		switch {
		case isContextOverflow(err):
			return &apiError{status: http.StatusBadGateway, msg: "The language model refused the input as longer than its context even after it was cut into smaller parts (" +
				serverSays(ae) + "); the server's EARSHOT_LLM_CONTEXT is larger than the model's context"}, true
		case ae.StatusCode == http.StatusServiceUnavailable || ae.StatusCode == http.StatusTooManyRequests:
			return &apiError{status: http.StatusServiceUnavailable, retryAfter: 10 * time.Second,
				msg: "The language model server is not ready or is overloaded (" + serverSays(ae) + "); try again shortly"}, true
		case ae.StatusCode == http.StatusNotFound:
			return &apiError{status: http.StatusBadGateway, msg: "The language model server does not serve the configured model (" + serverSays(ae) + ")"}, true
		case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
			return &apiError{status: http.StatusBadGateway, msg: "The language model server refused this server's credentials (" + serverSays(ae) + ")"}, true
		case ae.StatusCode >= 500:
			return &apiError{status: http.StatusBadGateway, msg: "The language model server failed (" + serverSays(ae) + ")"}, true
		default:
			return &apiError{status: http.StatusBadGateway, msg: "The language model server refused the request (" + serverSays(ae) + ")"}, true
		}
	case errors.Is(err, llm.ErrUnreachable):
		return &apiError{status: http.StatusBadGateway, msg: "The language model server could not be reached or cut its answer off"}, true
	case errors.Is(err, llm.ErrTruncated):
		if maxOutput < MaxOutputSize {
			return &apiError{status: http.StatusUnprocessableEntity, msg: fmt.Sprintf("The answer was longer than max_output_size (%d tokens) and was cut off; ask again with a larger max_output_size (at most %d)", maxOutput, MaxOutputSize)}, true
		}
		return &apiError{status: http.StatusBadGateway, msg: fmt.Sprintf("The language model's answer was longer than %d tokens and was cut off", maxOutput)}, true
	case errors.Is(err, llm.ErrMalformed):
		return &apiError{status: http.StatusBadGateway, msg: "The language model server's answer was not a chat completion (" + strings.TrimPrefix(err.Error(), "llm: ") + ")"}, true
	case errors.Is(err, errUnusable):
		return &apiError{status: http.StatusBadGateway, msg: err.Error()}, true
	}
	return storeError(err), true
}

// storeError answers a failure reading transcripts or answers: an
// unavailable or slow store is 503 with Retry-After, anything else 500.
func storeError(err error) *apiError {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, transcribe.ErrClosed) || errors.Is(err, transcribe.ErrUnavailable) {
		return &apiError{status: http.StatusServiceUnavailable, retryAfter: 5 * time.Second,
			msg: "Service unavailable: the server's storage did not answer in time; try again later"}
	}
	return &apiError{status: http.StatusInternalServerError, msg: "Internal server error"}
}
