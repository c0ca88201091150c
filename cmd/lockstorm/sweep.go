package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/sweep"
)

func sweepCommand() *cobra.Command {
	var (
		raw   = sweep.DefaultRaw()
		run   config.Config
		plan  string
		fresh bool
		camp  config.Campaign
	)
	cmd := newCommand("sweep", "run a grid of TTL x renewal x fencing x fault-length settings, of lockstorm's locks or any process client or zoo entry; recommend a TTL and renewal from the measured cells",
		func(cmd *cobra.Command) error {
			spec, err := sweepSpec(cmd, raw, run, plan, &camp)
			if err != nil {
				return err
			}
			spec.Fresh = fresh
			if _, err := campaign.Select(spec.Cells(), camp.Only); err != nil {
				return setupError(err)
			}
			runs := len(spec.Grid.Cells(spec.Runs))
			mine, sh := camp.Shard.Count(runs), camp.Shard
			part := ""
			if sh.Set() {
				part = fmt.Sprintf(", shard %s: %d of the %d runs", sh, mine, runs)
			}
			// About 1.5 s of set-up and checks per run on two cores.
			fmt.Printf("sweep %s: %d cells x %d seeds of %v each%s (about %.0f minutes), folder %s\n", spec.Name, runs/spec.Runs, spec.Runs,
				spec.TimeLimit, part, float64(mine)*(spec.TimeLimit.Seconds()+1.5)/60/float64(max(camp.Parallel, 1)), sweep.Dir(spec.Store, spec.Name))
			res, err := sweep.Run(cmd.Context(), spec, camp, sweep.Options{Progress: os.Stderr})
			if err != nil {
				return specError(err)
			}
			return finishCampaign(res.Campaign, camp, func() {
				if len(res.Cells) == 0 {
					return
				}
				fmt.Println()
				fmt.Print(sweep.PointsMarkdown(spec.Grid, spec.Runs, sweep.Aggregate(spec.Grid, res.Cells)))
				fmt.Printf("\ntable: %s\nindex: %s\n", filepath.Join(res.Dir, sweep.TableMDFile), filepath.Join(res.Dir, sweep.IndexFile))
				fmt.Printf("\nrecommendation: %s\n", res.Recommendation.Text)
				if sh.Set() {
					fmt.Printf("(shard %s holds %d of the %d runs: its table and recommendation cover its share only; lockstorm merge of every shard gives the sweep's)\n", sh, mine, runs)
				}
			}, nil)
		})
	cmd.Long = sweepLong
	f := cmd.Flags()
	f.StringVar(&raw.Name, "name", raw.Name, "sweep name: folder store/sweeps/NAME (a rerun resumes it)")
	config.AddAxisListFlag(f, (*string)(&raw.TTL), "ttl", string(raw.TTL))
	f.StringVar((*string)(&raw.Renew), "renew", string(raw.Renew), "comma-separated renewal intervals: none, ttl/N or durations")
	config.AddAxisListFlag(f, (*string)(&raw.Pause), "pause", string(raw.Pause))
	f.StringVar((*string)(&raw.Fencing), "fencing-axis", string(raw.Fencing), "comma-separated fencing values, one lock setting each: off (the lock of each --renew value, no fencing) and on (the fenced lock, no watchdog, against a resource that rejects stale writes)")
	config.AddSettingFlags(f, &run, "fencing", "clients", "topology")
	f.Lookup("fencing").Usage += "; in a sweep every cell runs so, the same as --fencing-axis on (--fencing=false: off)"
	f.Lookup("topology").Usage += "; a sweep's cluster has 3 masters"
	config.AddSettingFlags(f, &run, "hold-min", "hold-max")
	sweepDefault(f, "hold-min", raw.HoldMin, &run.Workloads.HoldMin)
	sweepDefault(f, "hold-max", raw.HoldMax, &run.Workloads.HoldMax)
	f.StringVar((*string)(&raw.Nemesis), "nemesis", string(raw.Nemesis), "comma-separated faults each pause length is run with: client-pause (SIGSTOP of the holder) and partition (the holder cut from every node)")
	f.StringVar(&raw.ClientCmd, "client-cmd", "", "run each client as a process of this command (docs/client-protocol.md) instead of lockstorm's own locks; it gets the cell's TTL and renewal as LOCKSTORM_TTL_MS and LOCKSTORM_RENEW_MS")
	f.StringVar(&raw.ClientDir, "client-dir", "", "working directory of --client-cmd (a command starting with a relative path is found in it)")
	f.StringVar(&raw.Lock, "lock", "", "the label of --client-cmd's lock in titles and the store (default client; a built-in lock's name also says whether it issues fencing tokens)")
	f.StringVar(&raw.ZooEntry, "zoo-entry", "", "a zoo entry's folder (zoo/rueidislock-v1.0.80): its client, build, nodes, node timeout and renewal from its zoo.yaml")
	f.StringVar(&plan, "config", "", "YAML sweep plan with keys named like these flags; flags given explicitly override it")
	f.BoolVar(&fresh, "fresh", false, "rerun every cell, even those finished before")
	config.AddCampaignFlags(f, &camp, "cells (grid points, named like ttl-200ms_renew-ttl3_pause-1.5s)")
	f.Lookup("shard").Usage += "; a sweep's runs are its (cell, seed) pairs in grid order"
	return cmd
}

// sweepSpec is the sweep the command line asks for: the campaign flags
// and run's settings (--clients, --topology, --fencing) checked as every
// command checks them, the flags over a --config plan. Errors are exit
// status 2 with one line.
func sweepSpec(cmd *cobra.Command, raw sweep.Raw, run config.Config, plan string, camp *config.Campaign) (sweep.Spec, error) {
	given := cmd.Flags().Changed
	if err := camp.Check(given); err != nil {
		return sweep.Spec{}, setupError(err)
	}
	// A sweep's --fencing runs the fenced lock, which issues tokens: run's
	// rule that the lock must issue them holds by construction.
	settings := run
	settings.Fencing = false
	if err := settings.CheckGiven(config.GivenAmong(given, "clients", "topology")); err != nil {
		return sweep.Spec{}, setupError(err)
	}
	if given("fencing") && given("fencing-axis") {
		return sweep.Spec{}, usage("--fencing and --fencing-axis both set the fencing axis: give one")
	}
	if given("fencing") {
		raw.Fencing = "off"
		if run.Fencing {
			raw.Fencing = "on"
		}
	}
	raw.Seeds, raw.TimeLimit, raw.Store = camp.Seeds, camp.TimeLimit().String(), camp.Store()
	raw.Clients, raw.Topology = run.Clients, run.Topology
	raw.HoldMin, raw.HoldMax = run.Workloads.HoldMin.String(), run.Workloads.HoldMax.String()
	set := func(k string) bool { return given(k) || (k == "fencing-axis" && given("fencing")) }
	r := raw
	r.Given = set
	if plan != "" {
		fromFile, err := sweep.LoadRaw(plan)
		if err != nil {
			return sweep.Spec{}, specError(err)
		}
		r = fromFile.Merge(raw, set).FillDefaults()
		r.Given = set
	}
	spec, err := r.Resolve(cmd.Context())
	if err != nil {
		return spec, specError(err)
	}
	return spec, nil
}

// specError maps a sweep error to exit status 2 with one line.
func specError(err error) error { return oneLineUsage(err, sweep.ErrSpec) }

// sweepDefault gives run's duration setting name a sweep's own default
// def: a sweep's holds are absolute, not scaled by the TTL, so that a TTL
// shorter than the holders' work shows.
func sweepDefault(f *pflag.FlagSet, name, def string, p *time.Duration) {
	d, _ := time.ParseDuration(def)
	*p = d
	fl := f.Lookup(name)
	fl.DefValue = d.String()
	fl.Usage = strings.Split(fl.Usage, " (default ")[0] + "; in a sweep an absolute duration, not scaled by the TTL"
}

const sweepLong = `sweep runs counter tests over a grid (TTL x renewal interval, plus the fenced lock
with --fencing-axis on, x length of client pauses of the lock holder) as a campaign: every grid
point is a cell, named like ttl-200ms_renew-ttl3_pause-1.5s (what --only takes), run with seeds
1..--seeds. It writes store/sweeps/NAME/: table.md, table.csv, violations.png (k/N runs invalid
per cell), availability.png and index.html linking every run's report, beside the campaign's
folder. The page and the terminal end with one recommendation line computed from the cells: the
smallest TTL and renewal with 0 of N invalid up to the longest pause any unfenced setting bore,
and how far fencing went beyond it. Unknown runs count as neither valid nor invalid. A rerun with
the same --name skips the runs already finished (--fresh reruns all). The default grid takes
about 4.5 minutes. --pause 0 means no pause (a cell without faults), as in compare.
--nemesis client-pause,partition runs every pause length both as a SIGSTOP of the holder and as a
partition of the holder from every node (timed just after one of its extensions returned, when the
cell renews), side by side: one heat-map panel per fault and setting, and the recommendation asks
a setting to hold under every fault.
Any lock: --client-cmd CMD (with --client-dir and --lock LABEL, as run) runs each cell's clients as
processes of CMD; --zoo-entry DIR takes the client, build, nodes, node timeout and renewal from a
zoo entry's zoo.yaml (and builds it). The cell's TTL reaches the client as LOCKSTORM_TTL_MS and its
renewal as LOCKSTORM_RENEW_MS (unset for none): docs/client-protocol.md says how a client maps them
onto its library's settings, and an entry's settings: map names them in the table and the
recommendation (KeyValidity, ExtendInterval). A watchdog entry's holders hold one to two TTLs
unless --hold-min/--hold-max are given.
A sweep measures: each run's claim is that it ends with a verdict, valid or invalid, so an
invalid run is a finding shown in the table, the heat maps and the JUnit case's output, not a
failed claim; --junit writes one test case per run, an error when the run has no verdict.
Exit status: 0 when every run has a verdict (whatever it is), 2 on bad input, 3 if interrupted
(finished runs are kept: rerun the same command to resume) or a run has no verdict.`
