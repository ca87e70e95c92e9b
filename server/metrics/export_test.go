package metrics

import "github.com/prometheus/client_golang/prometheus"

// JobsTotal returns the earshot_jobs_total series of outcome and engine.
func (m *Metrics) JobsTotal(outcome, engine string) prometheus.Counter {
	return m.jobs.WithLabelValues(outcome, engine)
}

// DecodersInUse returns the earshot_decoders_in_use series of pool.
func (m *Metrics) DecodersInUse(pool string) prometheus.Gauge {
	return m.poolInUse.WithLabelValues(pool)
}
