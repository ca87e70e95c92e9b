package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ConfigurePool sets on pc, a pool configuration the caller builds (with
// pgxpool.ParseConfig, say), what a Store on the pool needs: schema alone
// as every connection's search_path. An empty schema is DefaultSchema.
// The caller then creates the pool and passes it to New with the same
// schema.
func ConfigurePool(pc *pgxpool.Config, schema string) error {
	if pc == nil {
		return errors.New("postgres: ConfigurePool: the pool config is nil")
	}
	if schema == "" {
		schema = DefaultSchema
	}
	if err := checkSchema(schema); err != nil {
		return err
	}
	pc.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	return nil
}

// New is a Store on pool, a pool the caller created and keeps, for the
// tables in schema (empty: DefaultSchema). Its connections must have
// schema alone as their search_path (ConfigurePool sets it; a role's
// default set by ALTER ROLE ... SET search_path works too): a pool whose
// search_path is another is refused, since the store's statements name
// their tables unqualified. New creates and migrates the schema as Open
// does; the Store's Close leaves the pool open.
func New(ctx context.Context, pool *pgxpool.Pool, schema string) (*Store, error) {
	if pool == nil {
		return nil, errors.New("postgres: New: pool is nil")
	}
	if schema == "" {
		schema = DefaultSchema
	}
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	var path string
	if err := pool.QueryRow(ctx, `SELECT current_setting('search_path')`).Scan(&path); err != nil {
		return nil, fmt.Errorf("postgres: New: reading the pool's search_path: %w", err)
	}
	quoted := pgx.Identifier{schema}.Sanitize()
	if p := strings.TrimSpace(path); p != quoted && p != schema {
		return nil, fmt.Errorf("postgres: New: the pool's search_path is %q, want %q alone (postgres.ConfigurePool sets it on the pool's config)", path, schema)
	}
	if err := migrate(ctx, pool, schema); err != nil {
		return nil, fmt.Errorf("postgres: New: schema %s: %w", schema, err)
	}
	return &Store{pool: pool, schema: schema, borrowed: true}, nil
}

// checkSchema applies Config.Schema's rules to a schema given to
// ConfigurePool or New.
func checkSchema(schema string) error {
	c := Config{URL: "postgres://", Schema: schema}
	return c.validate()
}
