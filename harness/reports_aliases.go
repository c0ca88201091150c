package harness

// Names that package reports still reaches through harness. Each is a
// temporary alias or forwarder of the name's new home (package config or
// analysis), kept only until reports imports those packages.

import (
	"context"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/history"
)

// Config is config.Config.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
type Config = config.Config

// Progress is config.Progress.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
type Progress = config.Progress

// DefaultMinCoverage is config.DefaultMinCoverage.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
const DefaultMinCoverage = config.DefaultMinCoverage

// DefaultTargetHolder is config.DefaultTargetHolder.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
const DefaultTargetHolder = config.DefaultTargetHolder

// ReplayArgs is config.ReplayArgs.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
func ReplayArgs(c config.Config) []string { return config.ReplayArgs(c) }

// ClientsSummary is config.ClientsSummary.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
func ClientsSummary(c config.Config) string { return config.ClientsSummary(c) }

// Result is analysis.Result.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
type Result = analysis.Result

// Overhead is analysis.Overhead.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
type Overhead = analysis.Overhead

// BigHistoryRecords is a copy of analysis.BigHistoryRecords, for the
// report's text: setting it changes nothing (set
// analysis.BigHistoryRecords).
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
var BigHistoryRecords = analysis.BigHistoryRecords

// Load is analysis.Load.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
func Load(dir string) (*analysis.Result, []history.Warning, error) { return analysis.Load(dir) }

// Analyze is analysis.Analyze.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
func Analyze(ctx context.Context, dir string) (*analysis.Result, []history.Warning, error) {
	return analysis.Analyze(ctx, dir)
}

// Check is analysis.Check.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
func Check(ctx context.Context, res *analysis.Result) error { return analysis.Check(ctx, res) }

// Checkers is analysis.Checkers.
//
// Deprecated: temporary alias for reports, removed when reports imports analysis and config.
func Checkers(res *analysis.Result) *checker.Composite { return analysis.Checkers(res) }
