package transcribe

// SetTransitionHook lets tests see every status change the Service makes;
// the returned func removes the hook.
func SetTransitionHook(f func(from, to Status)) (restore func()) {
	prev := transitionHook
	transitionHook = f
	return func() { transitionHook = prev }
}

// CanTransition is the transition table's check, for the tests of
// package transcribe_test.
var CanTransition = canTransition
