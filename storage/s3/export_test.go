package s3

// SetMaxParts lowers the part limit for a test and returns a restore func.
func SetMaxParts(n int) (restore func()) {
	old := maxParts
	maxParts = n
	return func() { maxParts = old }
}
