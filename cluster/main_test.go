package cluster_test

import (
	"os"
	"testing"

	"github.com/lockstorm/lockstorm/cluster/clustertest"
)

// TestMain runs the tests, then fails the run if any redis-server or
// redis-sentinel child of this process or any run directory of this
// process is left behind.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		signalHelper()
		return
	}
	if os.Getenv(externalHelperEnv) != "" {
		externalHelper()
		return
	}
	os.Exit(clustertest.Main(m))
}
