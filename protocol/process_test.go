package protocol_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/protocol"
)

// startProcess runs cmd as a client with the environment of client c1
// and returns its peer; stdin is closed and the process waited for when
// the test ends. Its stderr is the test's log.
func startProcess(t *testing.T, cmd *exec.Cmd, environ ...string) *peer {
	t.Helper()
	addr, err := cl.Addr("c1", "n1")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), append([]string{protocol.EnvNodes + "=" + addr, protocol.EnvSlot + "=0", protocol.EnvTTL + "=500"}, environ...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: %v\n%s", cmd.Path, err, stderr.String())
		}
	})
	return newPeer(stdin, stdout)
}

// The documented Python example client, run for real: acquire, a second
// acquire of the held key fails, extend, release.
func TestProtocolPythonExampleClient(t *testing.T) {
	py := pythonWithRedis()
	if py == "" {
		t.Skip("no python3 (in PATH or /usr/bin) imports redis-py: install python3-redis (apt-get install -y python3-redis) to run the example client")
	}
	p := startProcess(t, exec.Command(py, filepath.Join("..", "clients", "python", "example_client.py")))
	k := key(t)
	a := p.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: 500})
	if a.Type != protocol.TypeOK || a.Token == "" || a.ValidityMillis <= 0 || a.ValidityMillis > 500 {
		t.Fatalf("acquire: %+v", a)
	}
	if b := p.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: 500, TimeoutMillis: 50}); b.Type != protocol.TypeFail {
		t.Fatalf("acquire of a held key: %+v, want fail", b)
	}
	if e := p.call(t, protocol.Request{Op: protocol.OpExtend, Key: k, Token: a.Token}); e.Type != protocol.TypeOK || e.ValidityMillis <= 0 {
		t.Fatalf("extend: %+v", e)
	}
	if r := p.call(t, protocol.Request{Op: protocol.OpRelease, Key: k, Token: a.Token}); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}
	if r := p.call(t, protocol.Request{Op: protocol.OpRelease, Key: k, Token: a.Token}); r.Type != protocol.TypeFail {
		t.Fatalf("second release: %+v, want fail", r)
	}
}

// pythonWithRedis is the first of python3 in PATH and Debian's
// /usr/bin/python3 (where python3-redis installs) that imports redis;
// "" if neither does.
func pythonWithRedis() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import redis").Run() == nil {
			return py
		}
	}
	return ""
}

// A missing or malformed variable is an error naming it.
func TestProtocolEnvErrors(t *testing.T) {
	ok := vars{protocol.EnvNodes: "127.0.0.1:1,127.0.0.1:2", protocol.EnvSlot: "3", protocol.EnvTTL: "250"}
	e, err := protocol.ReadEnv(ok.get)
	if err != nil || len(e.Nodes) != 2 || e.Slot != 3 || e.Options.TTL.Milliseconds() != 250 {
		t.Fatalf("ReadEnv: %+v %v", e, err)
	}
	for name, v := range map[string]string{protocol.EnvNodes: "", protocol.EnvSlot: "x", protocol.EnvTTL: "-5", protocol.EnvRenew: "soon", protocol.EnvNodeNames: "n1"} {
		bad := vars{}
		for k, w := range ok {
			bad[k] = w
		}
		bad[name] = v
		if _, err := protocol.ReadEnv(bad.get); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: error %v, want one naming it", name, v, err)
		}
	}
}

// mainEnv makes the test binary a client built with protocol.Main.
const mainEnv = "LOCKSTORM_PROTOCOL_MAIN_TEST"

// protocol.Main serves a Go lock as a whole client: acquire, release,
// exit 0 at the end of stdin (startProcess checks it); a bad environment
// is exit 2 with one line naming the variable.
func TestProtocolMain(t *testing.T) {
	p := startProcess(t, exec.Command(os.Args[0]), mainEnv+"=1")
	k := key(t)
	a := p.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: 500})
	if a.Type != protocol.TypeOK || a.Token == "" {
		t.Fatalf("acquire: %+v", a)
	}
	if r := p.call(t, protocol.Request{Op: protocol.OpRelease, Key: k, Token: a.Token}); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainEnv+"=1", protocol.EnvNodes+"=")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.HasPrefix(string(out), "main-test: "+protocol.EnvNodes) {
		t.Errorf("bad environment: %v, %q; want exit 2 and one line naming %s", err, out, protocol.EnvNodes)
	}
}
