package universal

import "fmt"

// Close codes of /v3/ws. Before every error close the server sends an
// Error message {"type": "Error", "error_code": code, "error": text} and
// then closes with the same code; the close reason is the fixed text of
// the code (Reasons).
const (
	CloseNormal          = 1000 // after Termination
	CloseGoingAway       = 1001 // the server shuts down
	CloseUnauthorized    = 1008 // bad or missing API key or token
	CloseTryAgainLater   = 1013 // at capacity, no recognizer free, or the Guard's limits
	CloseServerError     = 3005 // unexpected server error
	CloseInputValidation = 3006 // bad query parameter, JSON or message
	CloseInputDuration   = 3007 // audio chunk outside 50..1000 ms, or sent faster than real time
	CloseSessionExpired  = 3008 // maximum session duration exceeded
	CloseTooManySessions = 3009 // the project's concurrent sessions are at their limit
)

// reasons are the close reasons sent with each code.
var reasons = map[int]string{
	CloseNormal:          "Session terminated",
	CloseGoingAway:       "Server shutting down",
	CloseUnauthorized:    "Unauthorized connection",
	CloseTryAgainLater:   "Try again later",
	CloseServerError:     "Session Cancelled: An error occurred",
	CloseInputValidation: "Input validation error",
	CloseInputDuration:   "Input duration violation",
	CloseSessionExpired:  "Session Expired: Maximum session duration exceeded",
	CloseTooManySessions: "Too many concurrent sessions",
}

// Reason returns the close reason sent with code.
func Reason(code int) string {
	if r, ok := reasons[code]; ok {
		return r
	}
	return "Error"
}

// Error ends a connection: the transport sends ErrorMessage() and closes
// with Code and Reason(Code).
type Error struct {
	Code int
	Text string // the Error message's text: what was wrong, for the client
}

func (e *Error) Error() string { return fmt.Sprintf("v3 close %d: %s", e.Code, e.Text) }

// Message returns the Error message sent before the close.
func (e *Error) Message() ErrorMessage {
	return ErrorMessage{Type: TypeError, ErrorCode: e.Code, Error: e.Text}
}

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Text: fmt.Sprintf(format, args...)}
}

// invalid is an input validation error (3006).
func invalid(format string, args ...any) *Error {
	return errorf(CloseInputValidation, "Input validation error: "+format, args...)
}

// CloseCodes lists every close code /v3/ws sends.
func CloseCodes() []int {
	return []int{CloseNormal, CloseGoingAway, CloseUnauthorized, CloseTryAgainLater, CloseServerError,
		CloseInputValidation, CloseInputDuration, CloseSessionExpired, CloseTooManySessions}
}
