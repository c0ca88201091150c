package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/compare"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/sweep"
)

func compareCommand() *cobra.Command {
	var (
		run                          config.Config
		pause                        time.Duration
		f                            config.Campaign
		clientCmd, clientDir, zooDir string
	)
	cmd := newCommand("compare", "run the same seed and client pauses without and with a fencing resource; write a side-by-side page",
		func(cmd *cobra.Command) error {
			given := cmd.Flags().Changed
			if err := f.Check(given); err != nil {
				return setupError(err)
			}
			settings := []string{"lock", "ttl", "clients"}
			if given("client-cmd") {
				settings = settings[1:] // --lock labels the command's lock
			}
			if err := run.CheckGiven(config.GivenAmong(given, settings...)); err != nil {
				return setupError(err)
			}
			label := ""
			if given("lock") {
				label = run.Lock
			}
			proc, _, err := sweep.ResolveProcess(cmd.Context(), zooDir, clientCmd, clientDir, label)
			if err != nil {
				return specError(err)
			}
			if given("pause") {
				if err := config.AxisOf("pause").Check(pause); err != nil {
					return usage("%v", err)
				}
				if pause == 0 {
					return usage("--pause 0 means no pause, and a comparison needs the holder's pauses: give a positive length (default 2 x ttl)")
				}
			}
			spec, err := compare.Spec{Lock: run.Lock, TTL: run.TTL, Pause: pause, TimeLimit: f.TimeLimit(), Clients: run.Clients, Store: f.Store(), Process: proc}.WithDefaults()
			if err != nil {
				return specError(err)
			}
			if _, err := campaign.Select(spec.Cells(), f.Only); err != nil {
				return setupError(err)
			}
			fmt.Printf("compare: lock %s, ttl %v, pauses of %v at %v, seeds 1..%d\n", spec.Lock, spec.TTL, spec.Pause, spec.PauseTimes(), f.Seeds)
			res, err := compare.Run(cmd.Context(), spec, f, compare.Options{Progress: os.Stderr})
			if err != nil {
				return setupError(err)
			}
			return finishCampaign(res.Campaign, f, func() {
				for _, c := range res.Comparisons {
					for _, l := range c.Findings() {
						fmt.Println(l)
					}
					fmt.Printf("page: %s\n", filepath.Join(c.Dir, store.IndexFile))
				}
			}, func(v checker.Validity) error {
				switch v {
				case checker.Invalid:
					return &exitError{code: exitInvalid, err: fmt.Errorf("the comparison does not show what fencing should change")}
				case checker.Unknown:
					return &exitError{code: exitUnknown, err: fmt.Errorf("a run could not say whether its claim holds")}
				}
				return nil
			})
		})
	cmd.Long = compareLong
	fl := cmd.Flags()
	config.AddSettingFlags(fl, &run, "lock", "ttl", "clients")
	run.Lock = "fenced"
	fl.Lookup("lock").DefValue = "fenced"
	fl.Lookup("lock").Usage = "lock under test: it must issue fencing tokens (fenced, fenced-redlock); with --client-cmd, the command's lock's label"
	fl.StringVar(&clientCmd, "client-cmd", "", "run each client as a process of this command (docs/client-protocol.md); it must hand out fencing tokens")
	fl.StringVar(&clientDir, "client-dir", "", "working directory of --client-cmd")
	fl.StringVar(&zooDir, "zoo-entry", "", "a zoo entry's folder whose lock issues fencing tokens (zoo/seed-fencing): its client, build and nodes from its zoo.yaml")
	config.AddAxisFlag(fl, &pause, "pause", "2 x ttl; 0 is refused here, a comparison needs pauses")
	config.AddCampaignFlags(fl, &f, "cells (unfenced, fenced)")
	return cmd
}

const compareLong = `compare runs a campaign of two cells with the same lock and schedule of pauses of the
lock holder (pauses of --pause, default 2 x ttl; --pause 0 means no pause, as in sweep, and is
refused: without pauses there is nothing to compare): "unfenced", where the resource ignores
fencing tokens (claim: lost updates or an invalid verdict), and "fenced", where it rejects
stale ones (claim: valid, stale writes rejected), each with seeds 1..--seeds. For each
seed it writes store/compare/TIMESTAMP/index.html with both holders plots, lost updates,
stale writes accepted and rejected, and both verdicts.
Any lock that issues fencing tokens: --client-cmd CMD (with --client-dir, and --lock as its
label) runs the clients as processes of CMD, paused for real (SIGSTOP); --zoo-entry DIR takes
them from a zoo entry's zoo.yaml (fencing: true) and builds it.
Exit status: 0 when both claims hold for every seed, 1 when one does not, 2 on bad input,
3 if interrupted or a claim could not be judged.`
