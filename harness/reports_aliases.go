package harness

// Names that package reports still reaches through harness. Each is a
// temporary alias or forwarder of the name's new home (package config or
// analysis), kept only until reports imports those packages.

import "github.com/lockstorm/lockstorm/config"

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
