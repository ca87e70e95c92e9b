package media

import (
	"bytes"
	"strings"
)

// describeReference names content that is not media but points to other
// files or streams — playlists (M3U/HLS, PLS, XSPF, ASX, WPL), manifests
// (DASH, Smooth Streaming), ffmpeg concat scripts, SDP and RTSP
// descriptions, SMIL — or "" for anything else. head is the start of the
// file after any ID3 tag. Such files are refused before ffmpeg sees them:
// decoding one would read whatever it names, on this server or elsewhere.
// (ffmpeg is also run so that it could not follow them: see ffmpegArgs.)
func describeReference(head []byte) string {
	t := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	t = bytes.TrimLeft(t, " \t\r\n\f\v")
	if len(t) > sniffLen {
		t = t[:sniffLen]
	}
	lower := strings.ToLower(string(t))
	has := func(s string) bool { return strings.HasPrefix(lower, s) }
	switch {
	case has("#extm3u"):
		return "an M3U/HLS playlist"
	case has("ffconcat version"):
		return "an ffmpeg concat script"
	case has("[playlist]"):
		return "a PLS playlist"
	case has("rtsptext"):
		return "an RTSP reference"
	case has("v=0") && (strings.Contains(lower, "\nm=") || strings.Contains(lower, "\no=") || strings.Contains(lower, "\nc=")):
		return "an SDP session description"
	case has("<"):
		for _, m := range []struct{ tag, what string }{
			{"<mpd", "a DASH manifest (MPD)"},
			{"<smoothstreamingmedia", "a Smooth Streaming manifest"},
			{"<smil", "a SMIL presentation"},
			{"<asx", "an ASX playlist"},
			{"<?wpl", "a Windows Media playlist"},
			{"<playlist", "an XSPF playlist"},
		} {
			if strings.Contains(lower, m.tag) {
				return m.what
			}
		}
		return ""
	}
	// An M3U without its header, or a list of files and URLs: every line is
	// a comment, an #EXT tag, a path or a URL, and one at least is not a
	// comment.
	if bytes.IndexByte(t, 0) >= 0 {
		return ""
	}
	refs := 0
	for _, line := range strings.Split(lower, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "#ext-x-"), strings.HasPrefix(line, "#extinf"):
			return "an M3U/HLS playlist"
		case strings.HasPrefix(line, "#"):
		case looksLikeLocation(line):
			refs++
		default:
			return ""
		}
	}
	if refs > 0 {
		return "a playlist (a list of files or URLs)"
	}
	return ""
}

// looksLikeLocation reports whether line (lower case, trimmed) is a URL,
// an ffmpeg protocol specification or an absolute file path.
func looksLikeLocation(line string) bool {
	if strings.Contains(line, " ") && !strings.Contains(line, "://") {
		return false
	}
	switch {
	case strings.Contains(line, "://"),
		strings.HasPrefix(line, "/"), strings.HasPrefix(line, "~/"), strings.HasPrefix(line, `\\`),
		len(line) > 2 && line[0] >= 'a' && line[0] <= 'z' && line[1] == ':' && (line[2] == '\\' || line[2] == '/'):
		return true
	}
	for _, p := range []string{"file:", "concat:", "concatf:", "subfile,", "data:", "pipe:", "fd:", "crypto:", "cache:", "async:", "hls+", "tee:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}
