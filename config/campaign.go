package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/lockstorm/lockstorm/internal/shard"
)

// Campaign is what every campaign is asked to do besides its cells; its
// flags are CampaignSettings, with --time-limit and --store run's own.
type Campaign struct {
	// Seeds is the number of seeds per cell: cell runs use seeds 1..Seeds.
	Seeds int
	// Parallel is how many runs go at once (each its own nodes).
	Parallel int
	// Shard is the share of the cells' runs this machine runs.
	Shard shard.Shard
	// JUnit is the JUnit XML file to write ("": none).
	JUnit string
	// Only lists the cells to run by name ("": all).
	Only []string
	// Run holds the run settings campaigns share: TimeLimit and Store.
	Run Config

	shardText, onlyText string
	only                []string // when set, the rows bound (AddSomeCampaignFlags)
}

// CampaignSetting is one row of the campaign flags' table.
type CampaignSetting struct {
	Name, Help, Default string
	bind                func(fs *pflag.FlagSet, c *Campaign)
	check               func(c *Campaign) error // refuses a bad value, naming the flag
}

// CampaignSettings is the table of the flags every campaign shares.
func CampaignSettings() []CampaignSetting {
	return []CampaignSetting{
		{Name: "seeds", Help: "seeds per cell: each cell runs with seeds 1..N", Default: "1",
			bind:  func(fs *pflag.FlagSet, c *Campaign) { fs.IntVar(&c.Seeds, "seeds", 1, "") },
			check: func(c *Campaign) error { return positive("seeds", c.Seeds) }},
		{Name: "time-limit", Help: runSettingHelp("time-limit"), Default: asciiDuration(DefaultTimeLimit)},
		{Name: "parallel", Help: "runs at once, each with its own nodes and clients (mind the cores)", Default: "1",
			bind:  func(fs *pflag.FlagSet, c *Campaign) { fs.IntVar(&c.Parallel, "parallel", 1, "") },
			check: func(c *Campaign) error { return positive("parallel", c.Parallel) }},
		{Name: "shard", Help: "run shard K of N (K counts from 0, like Kubernetes' JOB_COMPLETION_INDEX): run i of the campaign's stable order runs on shard i mod N; the store gets a manifest in shards/ for lockstorm merge", Default: "the whole campaign",
			bind: func(fs *pflag.FlagSet, c *Campaign) { fs.StringVar(&c.shardText, "shard", "", "") },
			check: func(c *Campaign) (err error) {
				c.Shard, err = shard.Parse(c.shardText)
				return err
			}},
		{Name: "store", Help: runSettingHelp("store"), Default: "store"},
		{Name: "junit", Help: "write JUnit XML to this file: one test case per claim of each cell run, passing when the claim holds", Default: "none",
			bind:  func(fs *pflag.FlagSet, c *Campaign) { fs.StringVar(&c.JUnit, "junit", "", "") },
			check: func(c *Campaign) error { return CheckJUnitPath(c.JUnit) }},
		{Name: "only", Help: "comma-separated names of the cells to run", Default: "every cell",
			bind:  func(fs *pflag.FlagSet, c *Campaign) { fs.StringVar(&c.onlyText, "only", "", "") },
			check: func(c *Campaign) error { c.Only = splitList(c.onlyText); return nil }},
	}
}

// CheckJUnitPath refuses, before any run, a --junit path that cannot be
// written: it makes the folder and opens the file (removing a file it
// made). Errors wrap ErrConfig.
func CheckJUnitPath(path string) error {
	if path == "" {
		return nil
	}
	bad := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%w: --junit %s: cannot write there: %v", ErrConfig, path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return bad(err)
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return bad(err)
	}
	f.Close()
	if os.IsNotExist(statErr) {
		os.Remove(path)
	}
	return nil
}

// runSettingHelp is the help of the run setting name.
func runSettingHelp(name string) string {
	s, _ := setting(name)
	return s.Help
}

// positive refuses a value below 1.
func positive(name string, v int) error {
	if v < 1 {
		return fmt.Errorf("%w: --%s must be at least 1, got %d", ErrConfig, name, v)
	}
	return nil
}

// AddCampaignFlags binds the campaign flags to c; only names the cells
// for --only's help (e.g. "row numbers, e.g. 2,9,11,").
func AddCampaignFlags(fs *pflag.FlagSet, c *Campaign, only string) {
	for _, s := range CampaignSettings() {
		if c.only != nil && !slices.Contains(c.only, s.Name) {
			continue
		}
		if s.bind == nil {
			st, _ := setting(s.Name)
			st.value.bind(fs, &c.Run, s.Name, st.usage())
			continue
		}
		s.bind(fs, c)
		f := fs.Lookup(s.Name)
		f.Usage = s.Help
		if s.Name == "only" && only != "" {
			f.Usage = "comma-separated " + only + " to run"
		}
		if f.DefValue == "" {
			f.Usage += " (default " + s.Default + ")"
		}
	}
}

// AddSomeCampaignFlags binds the campaign flags named (run --runs takes
// --shard and --junit); Check then judges those only.
func AddSomeCampaignFlags(fs *pflag.FlagSet, c *Campaign, names ...string) {
	c.only = names
	AddCampaignFlags(fs, c, "")
}

// Check applies every row's refusal rule, then the run settings' (given
// reports whether a flag was on the command line). Errors wrap ErrConfig.
func (c *Campaign) Check(given func(string) bool) error {
	for _, s := range CampaignSettings() {
		if s.check != nil && (c.only == nil || slices.Contains(c.only, s.Name)) {
			if err := s.check(c); err != nil {
				return err
			}
		}
	}
	if c.Run.TimeLimit < 0 {
		return fmt.Errorf("%w: --time-limit must be positive, got %v", ErrConfig, c.Run.TimeLimit)
	}
	if c.only != nil {
		return nil
	}
	return c.Run.CheckGiven(GivenAmong(given, "time-limit", "store"))
}

// TimeLimit is the length of each run.
func (c *Campaign) TimeLimit() time.Duration { return c.Run.TimeLimit }

// Store is the store's root folder.
func (c *Campaign) Store() string { return c.Run.Store }

// CampaignMarkdown is the README's table of the campaign flags.
func CampaignMarkdown() string {
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	fs := pflag.NewFlagSet("campaign", pflag.ContinueOnError)
	var c Campaign
	AddCampaignFlags(fs, &c, "")
	for _, s := range CampaignSettings() {
		f := fs.Lookup(s.Name)
		arg, usage := pflag.UnquoteUsage(f)
		help := cmp.Or(s.Help, usage)
		fmt.Fprintf(&b, "| `--%s %s` | %s | %s |\n", s.Name, arg, cell(s.Default), cell(help))
	}
	return b.String()
}
