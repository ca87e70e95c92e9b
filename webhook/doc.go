// Package webhook delivers transcript completion webhooks: it implements
// transcribe.Notifier with the spec's retry policy.
package webhook
