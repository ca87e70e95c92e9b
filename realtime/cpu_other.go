//go:build !linux

package realtime

// threadCPU is not measured here: metered calls report no CPU time and
// LoadAdmission counts their wall time.
func threadCPU() (int64, bool) { return 0, false }
