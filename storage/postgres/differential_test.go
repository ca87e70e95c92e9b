package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/internal/testservices"
	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// The differential test drives this Store and the reference
// storage/memory Store with the same random sequence of calls, over a
// handful of ids, projects, owners and times so that collisions, lease
// conflicts, cursors and ties are common, and requires the same outcome of
// every call: the same error class and the same records in the same order
// (Seq values aside: PostgreSQL's identity column leaves gaps where an
// insert was refused).

// errClass names the sentinel an error wraps, for comparison.
func errClass(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{transcribe.ErrNotFound, "ErrNotFound"}, {transcribe.ErrExists, "ErrExists"},
		{transcribe.ErrLeaseLost, "ErrLeaseLost"}, {transcribe.ErrNoJob, "ErrNoJob"},
		{webhook.ErrNoDelivery, "ErrNoDelivery"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	if err != nil {
		return "error"
	}
	return "ok"
}

// showRecord renders every field the contract fixes (not Seq).
func showRecord(r *driver.Record) string {
	if r == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%s %s %s del=%v created=%s done=%s lease=%q/%s claims=%d fail=%d hook=%d sum=%q data=%q}",
		r.ID, r.ProjectID, r.Status, r.Deleted, showTime(r.Created), showTime(r.Completed), r.LeaseOwner, showTime(r.LeaseUntil),
		r.Claims, r.Failures, r.WebhookStatus, bytes.TrimSpace(r.Summary), r.Data)
}

func showTime(t time.Time) string {
	if t.IsZero() {
		return "zero"
	}
	return t.UTC().Format("15:04:05.000000")
}

func showUpload(u *driver.Upload) string {
	return fmt.Sprintf("{%s %s %d %s %q}", u.ID, u.ProjectID, u.Size, showTime(u.Created), u.TranscriptID)
}

func showDelivery(d *webhook.Delivery) string {
	if d == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{%s %s att=%d next=%s done=%v lease=%q/%s data=%q}",
		d.ID, d.TranscriptID, d.Attempts, showTime(d.NextAttempt), d.Done, d.LeaseOwner, showTime(d.LeaseUntil), d.Data)
}

// fullStore is what both stores implement.
type fullStore interface {
	driver.Store
	driver.UploadStore
	webhook.Queue
}

// picker draws the operands of a call.
type picker struct{ r *rand.Rand }

func (p picker) of(xs ...string) string { return xs[p.r.IntN(len(xs))] }
func (p picker) id() string             { return p.of("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8") }
func (p picker) project() string        { return p.of("p1", "p2") }
func (p picker) owner() string          { return p.of("", "w1", "w2") }

// status favours the claimable statuses, so that claims often succeed.
func (p picker) status() transcribe.Status {
	return []transcribe.Status{transcribe.StatusQueued, transcribe.StatusQueued, transcribe.StatusQueued,
		transcribe.StatusProcessing, transcribe.StatusProcessing, transcribe.StatusCompleted, transcribe.StatusError}[p.r.IntN(7)]
}

// at is t0 plus a few seconds, or (one time in ten) the zero time.
func (p picker) at() time.Time {
	n := p.r.IntN(10)
	if n == 0 {
		return time.Time{}
	}
	return t0.Add(time.Duration(n-3) * time.Second)
}

// call runs operation op on s and renders its outcome.
func call(ctx context.Context, s fullStore, op int, p picker) string {
	switch op {
	case 0, 1: // the commonest: records appear
		r := &driver.Record{ID: p.id(), ProjectID: p.project(), Status: p.status(), Deleted: p.r.IntN(5) == 0,
			Created: p.at(), LeaseOwner: p.owner(), LeaseUntil: p.at(), Summary: []byte(p.of("", "s1", "s2")), Data: []byte(p.of("", "d1", "d2"))}
		return "Create " + errClass(s.Create(ctx, r))
	case 2:
		r, err := s.Get(ctx, p.id())
		return "Get " + errClass(err) + " " + showRecord(r)
	case 3:
		r := &driver.Record{ID: p.id(), ProjectID: p.project(), Status: p.status(), Deleted: p.r.IntN(4) == 0,
			Created: p.at(), Completed: p.at(), LeaseOwner: p.owner(), LeaseUntil: p.at(), Claims: 9, Failures: p.r.IntN(3),
			WebhookStatus: 999, Summary: []byte(p.of("", "u1")), Data: []byte(p.of("", "x1", "x2"))}
		return "Update " + errClass(s.Update(ctx, r))
	case 4, 5:
		q := driver.ListQuery{ProjectID: p.project(), Limit: p.r.IntN(4), IncludeDeleted: p.r.IntN(2) == 0}
		if p.r.IntN(3) == 0 {
			q.Status = p.status()
		}
		if p.r.IntN(3) == 0 {
			q.CreatedFrom = p.at()
		}
		if p.r.IntN(3) == 0 {
			q.CreatedBefore = p.at()
		}
		switch p.r.IntN(4) {
		case 0:
			q.BeforeID = p.id()
		case 1:
			q.AfterID = p.id()
		}
		rs, err := s.List(ctx, q)
		var out []string
		for _, r := range rs {
			if r.Data != nil {
				out = append(out, "DATA!")
			}
			out = append(out, showRecord(r))
		}
		return fmt.Sprintf("List %+v %s %v", q, errClass(err), out)
	case 6, 7:
		owner := p.of("w1", "w2")
		r, err := s.ClaimJob(ctx, driver.Claim{Owner: owner, Now: t0.Add(time.Duration(p.r.IntN(12)-2) * time.Second), Lease: time.Duration(p.r.IntN(4)) * time.Second})
		return "ClaimJob " + errClass(err) + " " + showRecord(r)
	case 8:
		return "ExtendLease " + errClass(s.ExtendLease(ctx, driver.Lease{ID: p.id(), Owner: p.owner(), Until: p.at()}))
	case 9:
		return "SetWebhookStatus " + errClass(s.SetWebhookStatus(ctx, p.id(), p.r.IntN(600)))
	case 10:
		u := &driver.Upload{ID: p.of("u1", "u2", "u3", "u4"), ProjectID: p.project(), Size: p.r.Int64N(1 << 40), Created: p.at(),
			TranscriptID: p.of("", "", "t1")}
		return "CreateUpload " + errClass(s.CreateUpload(ctx, u))
	case 11:
		u, err := s.GetUpload(ctx, p.of("u1", "u2", "u3", "u4"))
		if err != nil {
			return "GetUpload " + errClass(err)
		}
		return "GetUpload " + showUpload(u)
	case 12:
		return "AttachUpload " + errClass(s.AttachUpload(ctx, p.of("u1", "u2", "u3", "u4"), p.of("", "t1", "t2")))
	case 13:
		return "DeleteUpload " + errClass(s.DeleteUpload(ctx, p.of("u1", "u2", "u3", "u4")))
	case 14:
		q := driver.UploadQuery{Unattached: p.r.IntN(2) == 0, Limit: p.r.IntN(4)}
		if p.r.IntN(2) == 0 {
			q.CreatedBefore = p.at()
		}
		if p.r.IntN(2) == 0 {
			q.AfterCreated, q.AfterID = p.at(), p.of("u1", "u2", "u3", "u4")
		}
		us, err := s.ListUploads(ctx, q)
		var out []string
		for _, u := range us {
			out = append(out, showUpload(u))
		}
		return fmt.Sprintf("ListUploads %+v %s %v", q, errClass(err), out)
	case 15:
		d := &webhook.Delivery{ID: p.of("d1", "d2", "d3"), TranscriptID: p.id(), Attempts: p.r.IntN(3), NextAttempt: p.at(),
			Done: p.r.IntN(4) == 0, LeaseOwner: p.owner(), LeaseUntil: p.at(), Data: []byte(p.of("", "h1"))}
		return "AddDelivery " + errClass(s.AddDelivery(ctx, d))
	case 16:
		d, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: p.of("w1", "w2"), Now: p.at(), Lease: time.Duration(p.r.IntN(4)) * time.Second})
		return "ClaimDelivery " + errClass(err) + " " + showDelivery(d)
	case 17:
		d := &webhook.Delivery{ID: p.of("d1", "d2", "d3"), TranscriptID: p.id(), Attempts: p.r.IntN(5), NextAttempt: p.at(),
			Done: p.r.IntN(3) == 0, LeaseOwner: p.owner(), LeaseUntil: p.at(), Data: []byte(p.of("", "h2"))}
		return "UpdateDelivery " + errClass(s.UpdateDelivery(ctx, d))
	default:
		n, err := s.PurgeDeliveries(ctx, p.at(), p.r.IntN(3))
		return fmt.Sprintf("PurgeDeliveries %s %d", errClass(err), n)
	}
}

const nOps = 19

func TestDifferential(t *testing.T) {
	t.Parallel()
	url := testservices.Postgres(t)
	ctx := context.Background()
	const seeds, steps = 6, 300
	for seed := range uint64(seeds) {
		pg := openTest(t, url, fmt.Sprint("diff_", seed))
		mem := memory.New()
		// Both stores draw the same operands from generators with the same
		// seed; the operation sequence comes from a third.
		ops := rand.New(rand.NewPCG(seed, 0))
		pgPick, memPick := picker{rand.New(rand.NewPCG(seed, 1))}, picker{rand.New(rand.NewPCG(seed, 1))}
		var history []string
		tally := map[string]int{}
		for step := range steps {
			op := ops.IntN(nOps)
			got, want := call(ctx, pg, op, pgPick), call(ctx, mem, op, memPick)
			history = append(history, want)
			f := strings.Fields(want)
			tally[f[0]+" "+f[1]]++
			if got != want {
				if len(history) > 12 {
					history = history[len(history)-12:]
				}
				t.Fatalf("seed %d step %d: postgres and memory differ\n postgres: %s\n   memory: %s\nlast calls (memory):\n  %s",
					seed, step, got, want, strings.Join(history, "\n  "))
			}
		}
		if seed == 0 {
			t.Logf("outcomes of seed 0: %v", tally)
		}
	}
}
