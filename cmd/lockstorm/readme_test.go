package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/lockstorm/lockstorm/config"
)

var update = flag.Bool("update", false, "rewrite README.md's generated sections")

// Markers around the README's generated list of `lockstorm run` flags.
const (
	runFlagsBegin = "<!-- run flags: generated from config/settings.go by `go test ./cmd/lockstorm -run TestREADMEFlagList -update`; do not edit -->\n"
	runFlagsEnd   = "<!-- end of run flags -->\n"
)

// The README's flag list is the run command's flags as the settings table
// renders them; -update rewrites it.
func TestREADMEFlagList(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, runFlagsBegin), strings.Index(readme, runFlagsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q and %q", runFlagsBegin, runFlagsEnd)
	}
	i += len(runFlagsBegin)
	want := config.FlagsMarkdown(runCommand().Flags())
	if readme[i:j] == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's run flags differ from the settings table; run go test ./cmd/lockstorm -run TestREADMEFlagList -update\nwant:\n%s", want)
	}
	if err := os.WriteFile(path, []byte(readme[:i]+want+readme[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Markers around the README's generated table of the campaign flags.
const (
	campaignFlagsBegin = "<!-- campaign flags: generated from config/campaign.go by `go test ./cmd/lockstorm -run TestREADMECampaignFlags -update`; do not edit -->\n"
	campaignFlagsEnd   = "<!-- end of campaign flags -->\n"
)

// The README's table of the shared campaign flags is the settings table's
// (config.CampaignSettings); -update rewrites it. Every campaign command
// takes every flag of it.
func TestREADMECampaignFlags(t *testing.T) {
	for name, cmd := range map[string]func() *cobra.Command{"catalog": catalogCommand, "compare": compareCommand, "power": powerCommand, "zoo": zooCommand} {
		for _, s := range config.CampaignSettings() {
			if cmd().Flags().Lookup(s.Name) == nil {
				t.Errorf("%s lacks the campaign flag --%s", name, s.Name)
			}
		}
	}
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, campaignFlagsBegin), strings.Index(readme, campaignFlagsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q and %q", campaignFlagsBegin, campaignFlagsEnd)
	}
	i += len(campaignFlagsBegin)
	want := config.CampaignMarkdown()
	if readme[i:j] == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's campaign flags differ from the settings table; run go test ./cmd/lockstorm -run TestREADMECampaignFlags -update\nwant:\n%s", want)
	}
	if err := os.WriteFile(path, []byte(readme[:i]+want+readme[j:]), 0o644); err != nil {
		t.Fatal(err)
	}
}
