package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	aai "github.com/AssemblyAI/assemblyai-go-sdk"
)

var listStatuses = []string{"queued", "processing", "completed", "error"}

func listCommand() *command {
	return &command{
		name:    "list",
		summary: "list transcripts, newest first",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			conn := addConnFlags(fs)
			limit := fs.Int("limit", 0, "transcripts per page, 1..200 (`N`; 0: the server's default, 10)")
			status := fs.String("status", "", "only transcripts with this `STATUS`: "+strings.Join(listStatuses, ", "))
			before := fs.String("before", "", "only transcripts created before transcript `ID` (the next page)")
			after := fs.String("after", "", "only transcripts created after transcript `ID`")
			createdOn := fs.String("created-on", "", "only transcripts created on `DATE` (YYYY-MM-DD)")
			format := fs.String("format", "table", "output `FORMAT`: table or json (the server's page, as is)")
			quiet := fs.Bool("quiet", false, "no hints on stderr (the next page's command, an empty list)")
			fs.BoolVar(quiet, "q", false, "the same as --quiet")
			return func(ctx context.Context, args []string) error {
				if len(args) != 0 {
					return usageErrorf("list takes no arguments, got %q (earshot help list)", args)
				}
				if *limit < 0 || *limit > 200 {
					return usageErrorf("--limit must be between 1 and 200, got %d", *limit)
				}
				if *status != "" && !slices.Contains(listStatuses, *status) {
					return usageErrorf("--status %q: must be one of %s", *status, strings.Join(listStatuses, ", "))
				}
				for _, id := range []string{*before, *after} {
					if id != "" {
						if err := checkID(id); err != nil {
							return err
						}
					}
				}
				if *format != "table" && *format != "json" {
					return usageErrorf("--format %q: must be table or json", *format)
				}
				params := aai.ListTranscriptParams{Status: aai.TranscriptStatus(*status)}
				if *limit > 0 {
					params.Limit = aai.Int64(int64(*limit))
				}
				if *before != "" {
					params.BeforeID = aai.String(*before)
				}
				if *after != "" {
					params.AfterID = aai.String(*after)
				}
				if *createdOn != "" {
					params.CreatedOn = aai.String(*createdOn)
				}
				cl, err := c.connect(ctx, conn, c.progress(true))
				if err != nil {
					return err
				}
				defer cl.Close()
				if *format == "json" {
					q := url.Values{}
					if params.Limit != nil {
						q.Set("limit", strconv.Itoa(*limit))
					}
					for k, v := range map[string]string{"status": *status, "before_id": *before, "after_id": *after, "created_on": *createdOn} {
						if v != "" {
							q.Set(k, v)
						}
					}
					data, err := cl.raw(ctx, "GET", "/v2/transcript?"+q.Encode(), nil)
					if err != nil {
						return fmt.Errorf("listing: %w", err)
					}
					var b bytes.Buffer
					if err := json.Indent(&b, data, "", "  "); err != nil {
						return fmt.Errorf("the server's JSON: %w", err)
					}
					b.WriteByte('\n')
					_, err = c.stdout.Write(safeJSON(b.Bytes()))
					return err
				}
				page, err := cl.sdk.Transcripts.List(ctx, params)
				if err != nil {
					return fmt.Errorf("listing: %w", sdkErr(err))
				}
				tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tAUDIO")
				for _, t := range page.Transcripts {
					created := strings.Replace(aai.ToString(t.Created), "T", " ", 1)
					if len(created) > 19 {
						created = created[:19]
					}
					audio := aai.ToString(t.AudioURL)
					if t.Status == aai.TranscriptStatusError && t.Error != nil {
						audio += "  (" + aai.ToString(t.Error) + ")"
					}
					cells := []string{aai.ToString(t.ID), string(t.Status), created, audio}
					for i := range cells {
						cells[i] = escapeText(cells[i], false)
					}
					fmt.Fprintln(tw, strings.Join(cells, "\t"))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				if *quiet {
					return nil
				}
				if len(page.Transcripts) == 0 {
					fmt.Fprintln(c.stderr, "earshot: no transcripts")
				} else if page.PageDetails.PrevURL != nil && *page.PageDetails.PrevURL != "" {
					next := "earshot list --before " + aai.ToString(page.Transcripts[len(page.Transcripts)-1].ID)
					if *limit > 0 {
						next += fmt.Sprintf(" --limit %d", *limit)
					}
					if *status != "" {
						next += " --status " + *status
					}
					fmt.Fprintf(c.stderr, "earshot: older transcripts: %s\n", escapeText(next, false))
				}
				return nil
			}
		},
	}
}

func getCommand() *command {
	return &command{
		name:    "get",
		args:    "ID",
		summary: "print a transcript",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			conn := addConnFlags(fs)
			out := addOutputFlags(fs)
			wait := fs.Bool("wait", false, "wait for a queued or processing transcript to finish")
			quiet := fs.Bool("quiet", false, "no progress on stderr while waiting")
			fs.BoolVar(quiet, "q", false, "the same as --quiet")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usageErrorf("get needs one transcript ID, got %d arguments (earshot help get)", len(args))
				}
				id := args[0]
				if err := checkID(id); err != nil {
					return err
				}
				if err := out.check(); err != nil {
					return err
				}
				prog := c.progress(*quiet || !*wait)
				cl, err := c.connect(ctx, conn, prog)
				if err != nil {
					return err
				}
				defer cl.Close()
				tr, err := cl.get(ctx, id)
				if err != nil {
					return fmt.Errorf("transcript %s: %w", id, err)
				}
				if *wait {
					if tr, err = c.wait(ctx, cl, tr, prog); err != nil {
						return err
					}
				}
				return c.finish(ctx, cl, tr, out)
			}
		},
	}
}

func deleteCommand() *command {
	return &command{
		name:    "delete",
		args:    "ID...",
		summary: "delete transcripts",
		setup: func(c *cli, fs *flag.FlagSet) func(context.Context, []string) error {
			conn := addConnFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usageErrorf("delete needs at least one transcript ID (earshot help delete)")
				}
				for _, id := range args {
					if err := checkID(id); err != nil {
						return err
					}
				}
				cl, err := c.connect(ctx, conn, c.progress(true))
				if err != nil {
					return err
				}
				defer cl.Close()
				for _, id := range args {
					if _, err := cl.sdk.Transcripts.Delete(ctx, id); err != nil {
						return fmt.Errorf("deleting %s: %w", id, sdkErr(err))
					}
					fmt.Fprintf(c.stdout, "deleted %s\n", id)
				}
				return nil
			}
		},
	}
}
