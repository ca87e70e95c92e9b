// Package sqlqueue describes, once for every SQL store (storage/sqlite,
// storage/postgres), the two leased queues they keep (queue.Queue): the
// jobs among the transcripts and the webhook deliveries. A Table says
// which rows a claim may take, in what order, and what it changes; the
// stores run its statements with their own drivers.
package sqlqueue

import (
	"strconv"

	"github.com/earshot-dev/earshot/transcribe"
	"github.com/earshot-dev/earshot/webhook"
)

// Dialect is how a database spells what the statements need.
type Dialect struct {
	param func(n int) string // the n-th positional parameter
	not   func(col string) string
	// claim wraps the pick (a SELECT of the first claimable key) and the
	// UPDATE that leases it into one statement.
	claim func(table, key, pick, set, cols string) string
}

// SQLite runs the claim as one UPDATE ... WHERE key = (SELECT ...)
// RETURNING under the database's write lock, so claims are atomic across
// connections and processes. Flags are integers (the partial indexes say
// "= 0").
var SQLite = Dialect{
	param: func(n int) string { return "?" + strconv.Itoa(n) },
	not:   func(col string) string { return col + " = 0" },
	claim: func(table, key, pick, set, cols string) string {
		return `UPDATE ` + table + ` SET ` + set + ` WHERE ` + key + ` = (` + pick + `) RETURNING ` + cols
	},
}

// Postgres locks the row with the SELECT ... FOR UPDATE SKIP LOCKED of a
// CTE and leases it with the UPDATE around it, in one statement. A
// concurrent claimer skips the locked row and takes the next, so claimers
// never wait for one another and never get the same row; a row that
// changed between the snapshot and the lock is re-checked by PostgreSQL
// before it is returned.
var Postgres = Dialect{
	param: func(n int) string { return "$" + strconv.Itoa(n) },
	not:   func(col string) string { return "NOT " + col },
	claim: func(table, key, pick, set, cols string) string {
		return `WITH pick AS (` + pick + ` FOR UPDATE SKIP LOCKED)
	UPDATE ` + table + ` SET ` + set + ` WHERE ` + key + ` = (SELECT ` + key + ` FROM pick) RETURNING ` + cols
	},
}

// Table is one leased queue in a table keyed by an id column, with the
// columns lease_owner and lease_until.
type Table struct {
	Name  string // the table
	What  string // what a row is, for errors: "transcript", "delivery"
	Empty error  // wrapped when nothing is due
	// Claim leases the first claimable row, in the queue's order, to the
	// owner (parameter 1) until parameter 2 at now (parameter 3), and
	// returns its columns.
	Claim string
}

func table(d Dialect, name, what string, empty error, key, due, order, set, cols string) *Table {
	pick := `SELECT ` + key + ` FROM ` + name + ` WHERE ` + due + ` ORDER BY ` + order + ` LIMIT 1`
	set = `lease_owner = ` + d.param(1) + `, lease_until = ` + d.param(2) + set
	return &Table{Name: name, What: what, Empty: empty, Claim: d.claim(name, key, pick, set, cols)}
}

// Jobs is the job queue among the transcripts, returning cols: the
// oldest (lowest seq) record that is queued, or processing under a lease
// that ran out, and not deleted; a claim makes it processing and counts
// the claim. The predicate is the one of the partial index of queued and
// processing records, so the scan never walks finished ones.
func Jobs(d Dialect, cols string) *Table {
	now := d.param(3)
	return table(d, "transcripts", "transcript", transcribe.ErrNoJob, "seq",
		d.not("deleted")+` AND status IN ('queued', 'processing') AND (status = 'queued' OR lease_until < `+now+`)`,
		`seq`, `, status = 'processing', claims = claims + 1`, cols)
}

// Deliveries is the queue of webhook deliveries, returning cols: the
// not-done delivery with the earliest next_attempt at or before now (ties:
// smaller id) whose lease is free (no owner) or ran out; the scan reads
// the partial index of pending deliveries in its order.
func Deliveries(d Dialect, cols string) *Table {
	now := d.param(3)
	return table(d, "deliveries", "delivery", webhook.ErrNoDelivery, "id",
		d.not("done")+` AND next_attempt <= `+now+` AND (lease_owner = '' OR lease_until < `+now+`)`,
		`next_attempt, id`, ``, cols)
}
