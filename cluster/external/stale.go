package external

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/lockstorm/lockstorm/cluster/internal/host"
)

// proxyPrefix starts the name of every proxy the external provider creates
// on a toxiproxy server. The full name is
//
//	lockstorm_<host>_<pid>_<random>_<client>-><target>
//
// where host is this machine's host name (with "_" replaced by "-"), pid
// the lockstorm process and random 8 hex digits that tell apart runs of
// one process. The owner part lets a later run find proxies that a killed
// run left behind (see removeStaleProxies).
const proxyPrefix = "lockstorm_"

// hostName is this machine's host name as it appears in proxy names.
func hostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "unknown-host"
	}
	return strings.ReplaceAll(h, "_", "-")
}

// newProxyRunPrefix is the name prefix of one run's proxies.
func newProxyRunPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s%s_%d_%s_", proxyPrefix, hostName(), os.Getpid(), hex.EncodeToString(b[:]))
}

// proxyOwner parses the owner of a proxy name made by newProxyRunPrefix;
// ok is false for any other name.
func proxyOwner(name string) (host string, pid int, ok bool) {
	rest, found := strings.CutPrefix(name, proxyPrefix)
	if !found {
		return "", 0, false
	}
	f := strings.SplitN(rest, "_", 4)
	if len(f) != 4 || f[0] == "" || len(f[2]) != 8 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	if _, err := hex.DecodeString(f[2]); err != nil {
		return "", 0, false
	}
	return f[0], pid, true
}

// removeStaleProxies deletes, with their toxics, the proxies on the server
// that a lockstorm run of this host left behind when it was killed: those
// named by newProxyRunPrefix with this host's name and the pid of a
// process that no longer exists here. Proxies of other hosts (whose pids
// mean nothing here), of live processes (a concurrent run, this one, or
// an unrelated process that reused the pid: then the leftovers stay, which
// is never wrong), and any other proxy are never touched. There is no age
// bound: a proxy's age says nothing about whether its run is alive. It is
// best effort: a proxy that cannot be deleted (another run on this host
// deleting it at the same time) is skipped. It returns the names removed.
func removeStaleProxies(api *toxiclient.Client) ([]string, error) {
	proxies, err := api.Proxies()
	if err != nil {
		return nil, fmt.Errorf("cluster: external: list proxies: %w", err)
	}
	me := hostName()
	var removed []string
	for name, px := range proxies {
		h, pid, ok := proxyOwner(name)
		if !ok || h != me || pid == os.Getpid() || host.ProcessAlive(pid) {
			continue
		}
		if px.Delete() == nil {
			removed = append(removed, name)
		}
	}
	return removed, nil
}
