package openaiapi_test

import (
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/httpapi"
	"github.com/earshot-dev/earshot/httpapi/openaiapi"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/media"
	"github.com/earshot-dev/earshot/transcribe/transcribetest"
)

// TestConfig checks that New names the field of every bad Config.
func TestConfig(t *testing.T) {
	t.Parallel()
	dec, err := media.NewDecoder(media.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &transcribetest.FakeRecognizer{}
	engines := []transcribe.Engine{{Name: "a", Aliases: []string{"fast"}, Recognizer: rec}, {Name: "b", Recognizer: rec}}
	svc, err := transcribe.NewService(transcribe.Config{Store: memory.New(), Blobs: memory.NewBlobStore(), Engines: engines,
		Decoder: dec, Key: transcribe.NewKey(), Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	good := openaiapi.Config{Service: svc, Auth: httpapi.Keys{"k": "p"}, Engines: engines}
	if _, err := openaiapi.New(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*openaiapi.Config)
		want string
	}{
		{func(c *openaiapi.Config) { c.Service = nil }, "Config.Service is required"},
		{func(c *openaiapi.Config) { c.Auth = nil }, "Config.Auth is required"},
		{func(c *openaiapi.Config) { c.Engines = nil }, "Config.Engines is required"},
		{func(c *openaiapi.Config) { c.Engines = []transcribe.Engine{{Recognizer: rec}} }, "Config.Engines[0] has no Name"},
		{func(c *openaiapi.Config) { c.Engines = []transcribe.Engine{{Name: "x"}} }, `Config.Engines[0] ("x") has no Recognizer`},
		{func(c *openaiapi.Config) { c.Aliases = map[string]string{"whisper-1": "c"} }, `Config.Aliases["whisper-1"] is "c", which is not the Name of an engine (a, b)`},
		{func(c *openaiapi.Config) { c.Aliases = map[string]string{" ": "a"} }, "empty model name"},
		{func(c *openaiapi.Config) { c.Aliases = map[string]string{"fast": "b"} }, `engine "a" already answers to that name`},
		{func(c *openaiapi.Config) { c.MaxUploadBytes = -1 }, "Config.MaxUploadBytes must not be negative"},
		{func(c *openaiapi.Config) { c.MaxFormBytes = -1 }, "Config.MaxFormBytes must not be negative"},
		{func(c *openaiapi.Config) { c.Timeout = -1 }, "must not be negative"},
	} {
		cfg := good
		c.edit(&cfg)
		if _, err := openaiapi.New(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}
