// Package postgres is a PostgreSQL store (WIP doc).
package postgres
