// Package webhook delivers transcript webhooks durably: it implements
// transcribe.Notifier with the spec's retry policy.
//
// Entry points:
//
//   - [New] checks a [Config] and returns a [*Notifier].
//   - [Queue] is the durable store of deliveries this package needs, and
//     nothing more (add, claim under a lease, extend, update, purge);
//     webhook/webhooktest.RunQueueTests is its conformance suite, and
//     [DeliveryQueue] turns it into the leased queue (transcribe/queue)
//     that transcription jobs use too, whose lease rules
//     queuetest.Run checks. The bundled stores (storage/memory,
//     storage/sqlite, storage/postgres) implement it beside their
//     transcript store.
//   - [Notifier.Notify] (the transcribe.Notifier method) only adds a
//     delivery to the Queue, its URL, body and auth header sealed with
//     Config.Key (bound to the delivery id), so the auth header value is
//     never stored in clear.
//   - [Notifier.Run] (or [Notifier.Start] and [Notifier.Close]) is the
//     dispatcher, a queue.Runner: it claims due deliveries from the store
//     under a lease (extended while an attempt runs) and POSTs them. Pending deliveries and scheduled retries live in the
//     store, so they survive a restart or a kill -9; a delivery whose
//     dispatcher died mid-attempt is taken over when its lease expires.
//     Finished deliveries are purged after Config.KeepDone (24 h).
//   - [Notifier.DeliverDue] attempts what is due right now, synchronously:
//     with a fake Config.Now, tests go through ten retries without waiting.
//   - [Policy], [CheckRetry] and [Backoff] (with [DefaultPolicy],
//     [DefaultCheckRetry], [DefaultBackoff]) decide success and retries.
//
// What is sent: a POST to webhook_url, every query parameter kept exactly,
// with Content-Type application/json, User-Agent [UserAgent], the auth
// header when the transcript has one, and the body
// {"transcript_id": "<id>", "status": "completed"|"error"} for
// EventTranscript or {"status": "redacted_audio_ready",
// "redacted_audio_url": "<url>"} for EventRedactedAudio.
//
// Policy (spec "Webhook" and "Limits"): a 200 answer is success; any other
// status is retried 10 times, 10 seconds apart, and then the delivery is
// permanently failed; when the URL cannot be reached (connection refused,
// DNS failure, timeout, TLS failure, or an address refused by
// transcribe/netguard) it is not retried. Redirects are not followed: a
// 3xx is a non-200 answer. After every attempt that got an HTTP status,
// Config.OnStatus receives it for webhook_status_code (EventTranscript
// deliveries only).
//
// Outbound safety: the default HTTP client is netguard.Client, which refuses
// loopback, private, link-local (cloud metadata) and other internal
// addresses at connect time unless Config.AllowPrivate is set.
//
// Wiring it into a Service, in dependency order (no cycles): the notifier
// needs only its queue, its own key, how to render redacted-audio URLs and
// where to record webhook_status_code (plain record metadata, not sealed);
// then the Service takes the notifier.
//
//	urls, _ := httpapi.NewURLs(publicURL, signingKey)
//	notifier, err := webhook.New(webhook.Config{
//		Queue:            store, // e.g. *sqlite.Store
//		Key:              webhookKey, // 32 bytes, not the content key
//		RedactedAudioURL: urls.RedactedAudio,
//		OnStatus:         store.SetWebhookStatus,
//		AllowPrivate:     allowPrivateURLs,
//	})
//	svc, err := transcribe.NewService(transcribe.Config{Store: store, Key: key, Notifier: notifier, ...})
//	notifier.Start()
//	defer notifier.Close()
//
// The outcome of an attempt is stored with a context of its own, started
// after the attempt, so an attempt that used up its timeout cannot make
// the delivery go out again.
//
// Config.OnAttempt reports every decided attempt (outcome delivered,
// retry or failed, attempt number, HTTP status, duration), for metrics.
//
// Delivery is at least once: a process killed after the receiver answered
// but before the outcome was stored repeats that attempt later.
//
// A Notification with a Key (the Service sets "<transcript id>/<event>")
// gets a delivery id derived from it (UUID version 5), so Notify of the
// same Key again finds the delivery stored and queues nothing: the
// Service's outbox may re-send a result's notifications safely. Invalid
// notifications also wrap transcribe.ErrNotificationRefused, which the
// Service does not retry.
//
// # Exported names
//
// Exported without a caller in this repository, on purpose: the retry
// policy's parts and their defaults (Backoff, CheckRetry, DefaultPolicy,
// DefaultBackoff, DefaultCheckRetry, DefaultMaxRetries, DefaultRetryInterval,
// DefaultTimeout), Body (renders the JSON a receiver gets), UserAgent (the header
// a receiver can check) and ErrInvalid.
package webhook
