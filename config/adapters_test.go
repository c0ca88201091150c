package config_test

// The adapters register "redsync" and "redislock" with lockimpl, as the
// harness's import does in every program that runs a test; config's tests
// of those names need them registered.
import _ "github.com/lockstorm/lockstorm/lockimpl/adapters"
