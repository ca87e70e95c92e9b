module github.com/earshot-dev/earshot

go 1.26.8

require (
	github.com/AssemblyAI/assemblyai-go-sdk v1.10.0
	github.com/TwiN/go-away v1.6.13
	github.com/asticode/go-astisub v0.34.0
	github.com/coder/websocket v1.8.15
	github.com/ebitengine/purego v0.11.3
	github.com/go-audio/audio v1.0.0
	github.com/go-audio/wav v1.1.0
	github.com/google/uuid v1.6.0
	github.com/hajimehoshi/go-mp3 v0.3.4
	github.com/jdkato/prose/v3 v3.2.3
	github.com/jfreymuth/oggvorbis v1.0.5
	github.com/jonreiter/govader v0.0.0-20250429093935-f6505c8d03cc
	github.com/kljensen/snowball v0.10.0
	github.com/mewkiz/flac v1.0.14
	github.com/nyaruka/phonenumbers v1.8.1
	golang.org/x/time v0.16.0
)

require (
	github.com/asticode/go-astikit v0.20.0 // indirect
	github.com/asticode/go-astits v1.8.0 // indirect
	github.com/cenkalti/backoff v2.2.1+incompatible // indirect
	github.com/go-audio/riff v1.0.0 // indirect
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/icza/bitio v1.1.0 // indirect
	github.com/jfreymuth/vorbis v1.0.2 // indirect
	github.com/mewkiz/pkg v0.0.0-20250417130911-3f050ff8c56d // indirect
	github.com/mewpkg/term v0.0.0-20241026122259-37a80af23985 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0 // indirect
	gonum.org/v1/gonum v0.8.2 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
