package server

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/analysis/llm"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/pipeline"
	"github.com/earshot-dev/earshot/transcribe/textfmt"
	"github.com/earshot-dev/earshot/webhook"
)

// stageOptions returns the pipeline's options: temporary files in tmp,
// the learned punctuation model with EARSHOT_PUNCTUATION_MODEL, and
// summaries and chapter titles from the chat model of EARSHOT_LLM_URL
// when one is configured, which also picks the key phrases and topics
// and confirms content safety labels among the built-in results.
func stageOptions(cfg *Config, tmp string, log *slog.Logger) (pipeline.Options, error) {
	popts := pipeline.Options{TempDir: tmp, Text: textfmt.Options{PunctuationModel: cfg.PunctuationModel}}
	if cfg.LLMURL != "" {
		gen, err := llm.New(llm.Config{BaseURL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMKey})
		if err != nil {
			return pipeline.Options{}, fmt.Errorf("EARSHOT_LLM_URL: %w", err)
		}
		popts.Summaries.Generator = gen
		popts.KeyPhrases.Chooser, popts.Topics.Chooser, popts.Safety.Chooser = gen, gen, gen
		log.Info("summaries, chapter titles, key phrases, topics and content safety labels use a language model; transcript text (already redacted) is sent to it", "url", cfg.LLMURL, "model", cfg.LLMModel)
	}
	return popts, nil
}

// serviceBase is what every region's Service is built on.
type serviceBase struct {
	key     []byte              // the content key
	engines []transcribe.Engine // engineSet.list
	media   *media.Decoder
	stages  pipeline.Options // stageOptions; TempDir is set per region
	worker  string           // this process in job and delivery leases (processID)
	ops     *ops
	log     *slog.Logger
}

// regionService is a region's transcription service and webhook
// notifier, with the storage and URLs they were built on.
type regionService struct {
	region *region
	urls   *httpapi.URLs
	svc    *transcribe.Service
	hooks  *webhook.Notifier
}

// buildServices builds each region's Service and notifier
// (newRegionService): the main region's with temporary files in tmp, the
// EU region's in tmp/eu. The main region's comes first.
func buildServices(cfg *Config, base serviceBase, st *stores, lns *listeners, tmp string) ([]*regionService, error) {
	main, err := newRegionService(cfg, base, st.main, lns.urls, tmp)
	if err != nil {
		return nil, err
	}
	out := []*regionService{main}
	if st.eu != nil {
		eu, err := newRegionService(cfg, base, st.eu, lns.euURLs, filepath.Join(tmp, "eu"))
		if err != nil {
			return nil, err
		}
		out = append(out, eu)
	}
	return out, nil
}

// newRegionService returns region r's webhook notifier, delivering from
// the region's store (sealed with a key derived from the content key,
// retried every EARSHOT_WEBHOOK_RETRY_INTERVAL, each delivery's status
// code recorded on its transcript), and its Service over the region's
// store and blobs, the shared engines and the pipeline, its temporary
// files in tmp. Neither is started.
func newRegionService(cfg *Config, base serviceBase, r *region, urls *httpapi.URLs, tmp string) (*regionService, error) {
	log := base.log
	if r.name != "" {
		log = log.With("region", r.name)
	}
	hooks, err := webhook.New(webhook.Config{
		Queue: r.store, Key: deriveKey(base.key, "webhook deliveries"), AllowPrivate: cfg.AllowPrivate, Logger: log,
		RedactedAudioURL: urls.RedactedAudio,
		OnStatus:         r.store.SetWebhookStatus,
		Policy:           webhook.Policy{Backoff: webhook.ConstantBackoff(cfg.WebhookRetry)},
		Owner:            "webhook-" + base.worker,
		OnAttempt:        base.ops.attemptHook(),
	})
	if err != nil {
		return nil, err
	}
	po := base.stages
	po.TempDir = tmp
	svc, err := transcribe.NewService(transcribe.Config{
		Store: r.store, Blobs: r.blobs, Engines: base.engines, Decoder: base.media, Key: base.key, Notifier: hooks,
		Stages:           pipeline.Default(po),
		AllowPrivateURLs: cfg.AllowPrivate,
		Workers:          jobWorkers(cfg, base.engines),
		Lease:            cfg.JobLease,
		OutageWindow:     cfg.OutageWindow,
		Retention:        cfg.Retention,
		UploadTTL:        cfg.UploadTTL,
		MaxUploadBytes:   cfg.MaxUpload,
		MaxMediaDuration: cfg.MaxDuration,
		TempDir:          tmp,
		Logger:           log,
		WorkerID:         base.worker,
		OnJob:            base.ops.jobHook(),
	})
	if err != nil {
		return nil, err
	}
	return &regionService{region: r, urls: urls, svc: svc, hooks: hooks}, nil
}
