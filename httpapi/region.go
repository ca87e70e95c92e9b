package httpapi

import (
	"errors"
	"fmt"

	"github.com/earshot-dev/earshot/transcribe"
)

// Endpoints names the endpoint set an API serves (Config.Endpoints).
type Endpoints string

const (
	// EndpointsAll serves every endpoint: the REST API, and the realtime
	// endpoints when Config.Realtime and Config.RealtimeToken are set.
	EndpointsAll Endpoints = ""
	// EndpointsEU serves the spec's EU region set at the same paths:
	// upload (POST /v2/upload), transcript create, list, get and delete,
	// word search, the redacted-audio status and its signed download.
	// Sentences, paragraphs, subtitles and the realtime endpoints answer
	// the API's JSON 404 there, as every unknown path does.
	//
	// The EU region is a second API over a second transcribe.Service with
	// its own Store and BlobStore (nothing it keeps is visible to the
	// other region: an upload_url or transcript id of one region is
	// unknown to the other), with URLs on the EU origin, served on a
	// listener of its own: the official Go SDK drops any path prefix of
	// its base URL, so a region cannot live under a prefix. The same Auth
	// may serve both regions.
	EndpointsEU Endpoints = "eu"
)

func (e Endpoints) validate(c *Config) error {
	switch e {
	case EndpointsAll:
		return nil
	case EndpointsEU:
		if c.Realtime != nil || c.RealtimeToken != nil {
			return errors.New("httpapi: Config.Realtime and Config.RealtimeToken are not served with EndpointsEU (the EU region has no realtime endpoints)")
		}
		return nil
	}
	return fmt.Errorf("httpapi: Config.Endpoints %q is not EndpointsAll or EndpointsEU", string(e))
}

// foreignUpload refuses an audio_url that is an upload URL of another
// region (Config.OtherRegions).
func (a *API) foreignUpload(audioURL string) error {
	for _, o := range a.cfg.OtherRegions {
		if o == nil || o.Origin() == a.urls.Origin() {
			continue
		}
		if _, ok := o.UploadID(audioURL); ok {
			return &transcribe.ParamError{Field: "audio_url", Reason: "this upload_url was made by another region (" + o.Origin() + "); upload the file to this region's base URL (" + a.urls.Origin() + "): uploads never leave their region"}
		}
	}
	return nil
}
