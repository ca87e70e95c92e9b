package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/earshot-dev/earshot/storage/memory"
	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/transcribe/driver"
	"github.com/earshot-dev/earshot/webhook"
)

// fullStore is what both stores implement.
type fullStore interface {
	driver.Store
	driver.UploadStore
	webhook.Queue
}

// The differential tests run the same operations on this Store and on the
// reference storage/memory Store and require the same results: same
// records in the same order, same Seqs, same error classes.

// opReader decodes operations from fuzz bytes; past the end it yields 0.
type opReader struct {
	b []byte
	i int
}

func (r *opReader) next() int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1])
}

func (r *opReader) pick(n int) int { return r.next() % n }

func (r *opReader) id() string      { return fmt.Sprintf("t%d", r.pick(5)) }
func (r *opReader) project() string { return fmt.Sprintf("p%d", r.pick(2)) }
func (r *opReader) owner() string   { return []string{"", "w0", "w1"}[r.pick(3)] }
func (r *opReader) status() transcribe.Status {
	return transcribe.Statuses()[r.pick(len(transcribe.Statuses()))]
}

// at returns base plus a few seconds, or the zero time.
func (r *opReader) at() time.Time {
	n := r.pick(12)
	if n == 11 {
		return time.Time{}
	}
	return base.Add(time.Duration(n) * time.Second)
}

// now returns base plus a few seconds, never the zero time.
func (r *opReader) now() time.Time { return base.Add(time.Duration(r.pick(12)) * time.Second) }

func (r *opReader) data() []byte {
	n := r.pick(4)
	if n == 0 {
		return nil
	}
	return bytes.Repeat([]byte{byte(r.next())}, n)
}

func errClass(err error) string {
	for _, e := range []error{transcribe.ErrNotFound, transcribe.ErrExists, transcribe.ErrLeaseLost, transcribe.ErrNoJob, webhook.ErrNoDelivery} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "other error"
	}
	return "nil"
}

func fmtRecord(r *driver.Record) string {
	if r == nil {
		return "<nil>"
	}
	t := func(x time.Time) string {
		if x.IsZero() {
			return "0"
		}
		return fmt.Sprint(x.Sub(base))
	}
	return fmt.Sprintf("{%s %s %s del=%v c=%s done=%s seq=%d owner=%q until=%s claims=%d fail=%d hook=%d sum=%x data=%x}",
		r.ID, r.ProjectID, r.Status, r.Deleted, t(r.Created), t(r.Completed), r.Seq, r.LeaseOwner, t(r.LeaseUntil),
		r.Claims, r.Failures, r.WebhookStatus, r.Summary, r.Data)
}

func fmtDelivery(d *webhook.Delivery) string {
	if d == nil {
		return "<nil>"
	}
	t := func(x time.Time) string {
		if x.IsZero() {
			return "0"
		}
		return fmt.Sprint(x.Sub(base))
	}
	return fmt.Sprintf("{%s %s n=%d next=%s done=%v owner=%q until=%s data=%x}",
		d.ID, d.TranscriptID, d.Attempts, t(d.NextAttempt), d.Done, d.LeaseOwner, t(d.LeaseUntil), d.Data)
}

func fmtRecords(rs []*driver.Record) string {
	var b bytes.Buffer
	for _, r := range rs {
		b.WriteString(fmtRecord(r))
	}
	return b.String()
}

// seqs maps the Seqs a store assigned to creation ordinals (1, 2, ...):
// SQLite's AUTOINCREMENT may skip values (a Create that fails with
// ErrExists uses one up), which the contract allows.
type seqs []int64

func (q seqs) ordinal(seq int64) int64 {
	if i := slices.Index(q, seq); i >= 0 {
		return int64(i + 1)
	}
	return -seq
}

// real turns ordinal k back into this store's Seq: k beyond the last
// record gives a Seq beyond every record.
func (q seqs) real(k int64) int64 {
	switch {
	case k <= 0:
		return 0
	case int(k) <= len(q):
		return q[k-1]
	case len(q) == 0:
		return k
	default:
		return q[len(q)-1] + k
	}
}

func (q seqs) record(r *driver.Record) *driver.Record {
	if r == nil {
		return nil
	}
	c := *r
	c.Seq = q.ordinal(r.Seq)
	return &c
}

// step applies one decoded operation to s and describes the outcome.
func step(ctx context.Context, s fullStore, sq *seqs, op []byte) (string, string) {
	r := &opReader{b: op}
	switch r.pick(12) {
	case 0, 1:
		rec := &driver.Record{ID: r.id(), ProjectID: r.project(), Status: r.status(), Deleted: r.pick(4) == 0,
			Created: r.at(), Completed: r.at(), LeaseOwner: r.owner(), LeaseUntil: r.at(), Failures: r.pick(3), Summary: r.data(), Data: r.data()}
		err := s.Create(ctx, rec)
		if err == nil {
			*sq = append(*sq, rec.Seq)
		}
		return fmt.Sprintf("Create(%s)", fmtRecord(rec)), fmt.Sprintf("%s seq=%d", errClass(err), sq.ordinal(rec.Seq))
	case 2:
		id := r.id()
		got, err := s.Get(ctx, id)
		return "Get(" + id + ")", errClass(err) + " " + fmtRecord(sq.record(got))
	case 3:
		rec := &driver.Record{ID: r.id(), ProjectID: r.project(), Status: r.status(), Deleted: r.pick(4) == 0,
			Created: r.at(), Completed: r.at(), LeaseOwner: r.owner(), LeaseUntil: r.at(), Data: r.data(), Seq: int64(r.pick(9)),
			Claims: r.pick(3), Failures: r.pick(3), WebhookStatus: r.pick(3), Summary: r.data()}
		return fmt.Sprintf("Update(%s)", fmtRecord(rec)), errClass(s.Update(ctx, rec))
	case 4, 5:
		q := driver.ListQuery{ProjectID: r.project(), Limit: r.pick(5), IncludeDeleted: r.pick(2) == 0}
		if r.pick(2) == 0 {
			q.Status = r.status()
		}
		if r.pick(3) == 0 {
			q.CreatedFrom = r.at()
		}
		if r.pick(3) == 0 {
			q.CreatedBefore = r.at()
		}
		if r.pick(2) == 0 {
			q.BeforeID = r.id()
		}
		if r.pick(2) == 0 {
			q.AfterID = r.id()
		}
		desc := fmt.Sprintf("List(%+v)", q)
		got, err := s.List(ctx, q)
		for i, rec := range got {
			got[i] = sq.record(rec)
		}
		return desc, errClass(err) + " " + fmtRecords(got)
	case 6:
		id, code := r.id(), r.pick(600)
		return fmt.Sprintf("SetWebhookStatus(%s, %d)", id, code), errClass(s.SetWebhookStatus(ctx, id, code))
	case 7:
		owner, now, lease := []string{"w0", "w1"}[r.pick(2)], r.now(), time.Duration(r.pick(6))*time.Second
		got, err := s.ClaimJob(ctx, driver.Claim{Owner: owner, Now: now, Lease: lease})
		return fmt.Sprintf("ClaimJob(%s, %v, %v)", owner, now.Sub(base), lease), errClass(err) + " " + fmtRecord(sq.record(got))
	case 8:
		id, owner, until := r.id(), r.owner(), r.at()
		return fmt.Sprintf("ExtendLease(%s, %q, %v)", id, owner, until), errClass(s.ExtendLease(ctx, driver.Lease{ID: id, Owner: owner, Until: until}))
	case 9:
		id := fmt.Sprintf("u%d", r.pick(3))
		switch r.pick(5) {
		case 3:
			tid := []string{"", "t1", "t2"}[r.pick(3)]
			return fmt.Sprintf("AttachUpload(%s, %q)", id, tid), errClass(s.AttachUpload(ctx, id, tid))
		case 4:
			q := driver.UploadQuery{CreatedBefore: r.at(), Unattached: r.pick(2) == 0, Limit: r.pick(4)}
			if r.pick(2) == 0 {
				q.AfterCreated, q.AfterID = r.at(), fmt.Sprintf("u%d", r.pick(3))
			}
			us, err := s.ListUploads(ctx, q)
			out := errClass(err)
			for _, u := range us {
				out += fmt.Sprintf(" %s %s %d %v %q", u.ID, u.ProjectID, u.Size, u.Created.Sub(base), u.TranscriptID)
			}
			return fmt.Sprintf("ListUploads(%+v)", q), out
		case 0:
			u := &driver.Upload{ID: id, ProjectID: r.project(), Size: int64(r.next()), Created: r.at(), TranscriptID: []string{"", "t1"}[r.pick(2)]}
			return fmt.Sprintf("CreateUpload(%+v)", *u), errClass(s.CreateUpload(ctx, u))
		case 1:
			u, err := s.GetUpload(ctx, id)
			out := errClass(err)
			if u != nil {
				out += fmt.Sprintf(" %s %s %d %v %q", u.ID, u.ProjectID, u.Size, u.Created.Sub(base), u.TranscriptID)
			}
			return "GetUpload(" + id + ")", out
		default:
			return "DeleteUpload(" + id + ")", errClass(s.DeleteUpload(ctx, id))
		}
	default:
		d := &webhook.Delivery{ID: fmt.Sprintf("d%d", r.pick(4)), TranscriptID: r.id(), Attempts: r.pick(3),
			NextAttempt: r.at(), Done: r.pick(4) == 0, LeaseOwner: r.owner(), LeaseUntil: r.at(), Data: r.data()}
		switch r.pick(4) {
		case 0:
			return fmt.Sprintf("AddDelivery(%s)", fmtDelivery(d)), errClass(s.AddDelivery(ctx, d))
		case 1:
			return fmt.Sprintf("UpdateDelivery(%s)", fmtDelivery(d)), errClass(s.UpdateDelivery(ctx, d))
		case 2:
			before, limit := r.now(), r.pick(3)
			n, err := s.PurgeDeliveries(ctx, before, limit)
			return fmt.Sprintf("PurgeDeliveries(%v, %d)", before.Sub(base), limit), fmt.Sprintf("%s %d", errClass(err), n)
		default:
			owner, now, lease := []string{"w0", "w1"}[r.pick(2)], r.now(), time.Duration(r.pick(6))*time.Second
			got, err := s.ClaimDelivery(ctx, webhook.Claim{Owner: owner, Now: now, Lease: lease})
			return fmt.Sprintf("ClaimDelivery(%s, %v, %v)", owner, now.Sub(base), lease), errClass(err) + " " + fmtDelivery(got)
		}
	}
}

// differential runs the operations encoded in ops (16 bytes each) on a
// fresh SQLite Store and a fresh memory Store.
func differential(t *testing.T, ops []byte) {
	ctx := context.Background()
	s, err := Open(Config{Path: filepath.Join(t.TempDir(), "d.db"), Synchronous: "NORMAL"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := memory.New()
	var sSeqs, mSeqs seqs
	var history []string
	for i := 0; i < len(ops); i += 16 {
		op := ops[i:min(i+16, len(ops))]
		desc, want := step(ctx, m, &mSeqs, op)
		_, got := step(ctx, s, &sSeqs, op)
		history = append(history, desc+" -> "+want)
		if got != want {
			start := max(0, len(history)-15)
			t.Fatalf("operation %d: %s\n sqlite: %s\n memory: %s\nlast operations:\n%s",
				i/16, desc, got, want, strings.Join(history[start:], "\n"))
		}
	}
}

// TestDifferential runs pseudo-random operation sequences. (It is not a
// fuzz target: coverage instrumentation of the transpiled SQLite makes
// each execution take seconds, so fuzzing would find next to nothing in
// CI's time budget.)
func TestDifferential(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		ops := make([]byte, 16*80)
		for i := range ops {
			ops[i] = byte(rng.UintN(256))
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) { differential(t, ops) })
	}
}
