// Package netguard keeps Earshot's outbound HTTP requests (audio_url
// downloads, webhook deliveries) away from the service's own network:
// loopback, private, link-local (which covers cloud metadata endpoints such
// as 169.254.169.254), multicast, carrier-grade NAT and the other special
// address ranges.
//
// Entry points:
//
//   - [Client] returns an *http.Client whose every connection is checked
//     after name resolution, at dial time, so DNS rebinding and redirects to
//     internal hosts are refused as well. It follows at most
//     [MaxRedirects] redirects, and only to http and https URLs.
//   - [CheckLiteral] vets a URL at submit time without any network access:
//     it refuses URLs whose host is literally a blocked address or
//     "localhost". Use it for transcribe.Config.CheckURL to answer 400.
//   - [Check] reports whether one IP address is blocked, and why.
//
// A refused connection fails with a *[BlockedError] (find it with
// errors.As), whose Error text is a clear reason suitable for a
// transcript's error field.
//
// Options.AllowPrivate turns the dial-time checks off (for self-hosted
// setups that fetch from or notify hosts on the local network, and for
// tests). Everything in this package is safe for concurrent use.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the pieces of
// the guarded client for embedders that fetch URLs of their own (Check,
// Dialer, NewDialer, Transport, MaxRedirects) and the errors they return
// (BlockedError, ErrInvalidURL, ErrRedirect).
package netguard
