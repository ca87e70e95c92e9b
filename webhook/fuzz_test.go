package webhook_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/earshot-dev/earshot/internal/webhookfakes"
	"github.com/earshot-dev/earshot/webhook"
)

// FuzzNotify: Notify either refuses a notification with ErrInvalid or it is
// delivered with its query and auth header intact; nothing accepted fails
// at send time and nothing panics.
func FuzzNotify(f *testing.F) {
	f.Add("X-Secret", "s3cret", "a=1&b=2")
	f.Add("Authorization", "Bearer \ttok", "x=%2F&y=")
	f.Add("X Bad", "v", "")
	f.Add("X-A", "v\r\nX-Injected: 1", "q")
	f.Add("X-A", "caf\xc3\xa9\x01", "%zz")
	f.Add("", "", "k=v;w")
	e := webhookfakes.NewEnv(f)
	rcv := webhookfakes.NewReceiver(f, e.Clock, 200)
	n := e.Notifier(f, nil)
	f.Fuzz(func(t *testing.T, name, value, query string) {
		before := len(rcv.Hits())
		note := webhookfakes.Completed("tr-fuzz", rcv.URL+"/f?"+query)
		note.HeaderName, note.HeaderValue = name, value
		err := n.Notify(context.Background(), note)
		if err != nil {
			if !errors.Is(err, webhook.ErrInvalid) {
				t.Fatalf("Notify error %v does not wrap ErrInvalid", err)
			}
			return
		}
		k, err := n.DeliverDue(context.Background())
		if err != nil || k != 1 {
			t.Fatalf("DeliverDue = %d, %v", k, err)
		}
		hits := rcv.Hits()
		if len(hits) != before+1 {
			t.Fatalf("accepted notification was not delivered (name %q value %q query %q)", name, value, query)
		}
		h := hits[len(hits)-1]
		if u, perr := url.Parse(note.URL); perr == nil && h.Query != u.RawQuery {
			t.Errorf("query %q arrived as %q", u.RawQuery, h.Query)
		}
		if name != "" {
			if got, want := h.Header.Get(name), strings.Trim(value, " \t"); got != want {
				t.Errorf("header %q: got %q, want %q", name, got, want)
			}
		}
	})
}
