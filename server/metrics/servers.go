package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/earshot-dev/earshot/adapters/enginepool"
)

// serverVecs are the per-server series of engine pools, registered on
// first use.
type serverVecs struct {
	once     sync.Once
	inFlight *prometheus.GaugeVec
	requests *prometheus.CounterVec
	up       *prometheus.GaugeVec
}

// EngineServers returns the hook (openai.Config.OnServer,
// whispercpp.Config.OnServer) that keeps the metrics of each server of the
// engine's pool (adapters/enginepool):
// earshot_engine_server_requests_in_flight{engine,server},
// earshot_engine_server_requests_total{engine,server,outcome} (ok,
// refused, error, unavailable, canceled; every outcome's series exists
// from the start) and earshot_engine_server_up{engine,server} (1 while
// the pool uses the server, 0 while it skips it). Servers are labelled
// with their URLs without credentials.
func (m *Metrics) EngineServers(engine string) func(enginepool.Event) {
	v := &m.servers
	v.once.Do(func() {
		f := factory{m.reg}
		v.inFlight = f.gaugeVec("earshot_engine_server_requests_in_flight", "Requests a speech engine server is given now, by engine and server.", "engine", "server")
		v.requests = f.counterVec("earshot_engine_server_requests_total", "Requests to a speech engine server that ended, by engine, server and outcome (ok, refused, error, unavailable, canceled).", "engine", "server", "outcome")
		v.up = f.gaugeVec("earshot_engine_server_up", "Whether a speech engine's pool uses the server (1) or skips it as down (0), by engine and server.", "engine", "server")
	})
	return func(e enginepool.Event) {
		switch e.Kind {
		case enginepool.Started:
			v.inFlight.WithLabelValues(engine, e.Server).Set(float64(e.InFlight))
		case enginepool.Finished:
			v.inFlight.WithLabelValues(engine, e.Server).Set(float64(e.InFlight))
			v.requests.WithLabelValues(engine, e.Server, string(e.Outcome)).Inc()
		case enginepool.Up:
			v.up.WithLabelValues(engine, e.Server).Set(1)
			v.inFlight.WithLabelValues(engine, e.Server).Set(float64(e.InFlight))
			for _, o := range enginepool.Outcomes() {
				v.requests.WithLabelValues(engine, e.Server, string(o))
			}
		case enginepool.Down:
			v.up.WithLabelValues(engine, e.Server).Set(0)
		}
	}
}
