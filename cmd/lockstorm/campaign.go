package main

import (
	"fmt"

	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/reports"
)

// finishCampaign ends every campaign command the same way: the summary
// table, what the command adds (more, may be nil), the --junit file, the
// campaign's folder and shard manifest, and the exit status: 3 when
// interrupted, else status of the campaign's outcome (nil: 0 valid, 1
// invalid, 3 unknown).
func finishCampaign(rep *campaign.Report, f config.Campaign, more func(), status func(checker.Validity) error) error {
	fmt.Println()
	fmt.Print(rep.Markdown())
	if more != nil {
		more()
	}
	fmt.Printf("campaign: %s\n", rep.Dir)
	if rep.Manifest != "" {
		fmt.Printf("shard manifest: %s (lockstorm merge combines the shards)\n", rep.Manifest)
	}
	if f.JUnit != "" {
		if err := reports.WriteJUnitFile(f.JUnit, rep.JUnit()); err != nil {
			return usage("%v", err)
		}
	}
	v := rep.Status()
	switch {
	case rep.Interrupted:
		return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted after %d of %d runs; their results are kept", len(rep.Outcomes), rep.Planned)}
	case status != nil:
		return status(v)
	case v == checker.Invalid:
		return &exitError{code: exitInvalid, err: fmt.Errorf("a claim does not hold: %s", rep.StatusLine())}
	case v == checker.Unknown:
		return &exitError{code: exitUnknown, err: fmt.Errorf("a claim could not be judged: %s", rep.StatusLine())}
	}
	return nil
}
