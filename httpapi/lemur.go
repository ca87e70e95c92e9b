package httpapi

import (
	"net/http"
)

// LeMUR serves AssemblyAI's LeMUR endpoints for an authenticated project
// (package httpapi/lemur implements it on a chat model). httpapi mounts
// the routes, authenticates, rate limits, sets the request id and reports
// the request (Config.OnRequest) as for every route; the handler bounds
// its own time (model calls take far longer than the store deadline).
type LeMUR interface {
	ServeLeMUR(w http.ResponseWriter, r *http.Request, project string)
}

// noLeMURModel answers the LeMUR routes of a server without a language
// model: 400, since only the server's configuration can change it.
const noLeMURModel = "LeMUR is not available: this server has no language model configured (the operator sets EARSHOT_LLM_URL and EARSHOT_LLM_MODEL)"

// lemurRoutes registers the LeMUR routes (Go SDK v1.10.0 lemur.go).
func (a *API) lemurRoutes(m *http.ServeMux) {
	m.HandleFunc("/lemur/v3/generate/task", a.lemurMethod(map[string]handler{"POST": a.lemur}))
	m.HandleFunc("/lemur/v3/generate/summary", a.lemurMethod(map[string]handler{"POST": a.lemur}))
	m.HandleFunc("/lemur/v3/generate/question-answer", a.lemurMethod(map[string]handler{"POST": a.lemur}))
	m.HandleFunc("/lemur/v3/generate/action-items", a.lemurMethod(map[string]handler{"POST": a.lemur}))
	m.HandleFunc("/lemur/v3/{request_id}", a.lemurMethod(map[string]handler{"GET": a.lemur, "DELETE": a.lemur}))
}

func (a *API) lemur(w http.ResponseWriter, r *http.Request, project string) {
	if a.cfg.LeMUR == nil {
		writeError(w, http.StatusBadRequest, noLeMURModel)
		return
	}
	a.cfg.LeMUR.ServeLeMUR(w, r, project)
}

// lemurMethod is method without the store deadline: a LeMUR request
// waits for a model for up to minutes, and the LeMUR handler bounds its
// store calls and its model calls itself.
func (a *API) lemurMethod(hs map[string]handler) http.HandlerFunc { return a.dispatch(hs, false) }
