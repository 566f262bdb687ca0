//go:build unix

package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve's operator page "/", loaded by a real browser: after a slot has
// released and located, the page names the scope, the budget left (as the
// ledger has it), the last runs (as Neo4j has them) and the latest ranking
// with its picture; headless Chromium renders it and the screenshot shows
// the ranking's colours.
func TestServeOperatorPageInBrowser(t *testing.T) {
	s := neo4jServer(t)
	d := rawDriver(t, s)
	f := sbmFixture(t, []int{40, 40, 40}, 0.2, 0.01, 21)
	f.load(t, d)
	e := newE2E(t, s, d, f)
	// A budget for one release: every later slot is refused and locates
	// that release again, so the ranking and its picture stay the same
	// while the browser loads the page (as slow as the machine is busy).
	// ε_total 1.1 at δ 1e-5 is ρ 0.0364, one release at ε 1, δ 1e-6 costs
	// ρ 0.0244: a second does not fit (1.5 admitted two, and the second
	// superseded the release the page had shown).
	e.scope += "_one"
	if r := runCLI(t, s.Password, "budget", "--init", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User,
		"--scope", e.scope, "--epsilon-total", "1.1", "--delta-total", "1e-5"); r.Code != 0 {
		t.Fatalf("budget --init: exit %d: %s", r.Code, r.Stderr)
	}
	t.Cleanup(func() {
		deleteScopeRuns(t, d, e.scope)
		query(t, d, "MATCH (l) WHERE (l:GraphcloakLedger OR l:GraphcloakCharge) AND l.scope = $s DELETE l", map[string]any{"s": e.scope})
	})
	addr := freeAddr(t)
	args := append([]string{"serve", "--schedule", "@every 5s", "--listen", addr}, e.projectionFlags()...)
	args = append(args, "--value-property", "obs", "--write-property", e.write, "--tau", "0.5", "--epsilon", "1",
		"--delta", "1e-6", "--ledger", "neo4j", "--scope", e.scope, "--communities", "property:community",
		"--mass-property", e.mass, "--community-write-property", e.comm, "--probability-property", e.prob, "--rank-property", e.rank)
	srv := startServe(t, s, args)
	srv.waitMetrics(t, addr, 4*time.Minute, func(m map[string]float64) bool {
		return m[`graphcloak_runs_total{command="locate",status="succeeded"}`] >= 1
	})
	browser := chromiumPath(t)
	shot := filepath.Join(t.TempDir(), "page.png")
	// The browser's loads show the ranking of the page read before them
	// when the page read after them shows the same ranking and picture.
	var page, dom string
	for attempt := 1; ; attempt++ {
		page = httpGet(t, "http://"+addr+"/")
		dom = runChromium(t, browser, "--dump-dom", "http://"+addr+"/")
		runChromium(t, browser, "--window-size=1280,1700", "--screenshot="+shot, "http://"+addr+"/")
		if r := rankingOf(page); r != "" && r == rankingOf(httpGet(t, "http://"+addr+"/")) {
			break
		}
		if attempt == 5 {
			t.Fatalf("the ranking changed during each of %d page loads", attempt)
		}
	}
	srv.stop(t, syscall.SIGTERM, 0)

	// The HTML says what Neo4j and the ledger say. Slots went on after
	// the page was read, so the ledger's ρ left now is at most the page's.
	r := runCLI(t, s.Password, "budget", "--ledger", "neo4j", "--uri", s.URI, "--user", s.User, "--scope", e.scope, "-o", "json")
	var bal struct {
		Scopes []struct {
			Releases                int
			RhoRemaining, RhoBudget float64
		}
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &bal) != nil || len(bal.Scopes) != 1 {
		t.Fatalf("budget: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	if bal.Scopes[0].Releases != 1 {
		t.Errorf("the scope's budget admitted %d releases, want the one the page shows", bal.Scopes[0].Releases)
	}
	m := regexp.MustCompile(`id="rho-left">([^<]+)<`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no ρ left on the page:\n%s", page)
	}
	pageLeft, err := strconv.ParseFloat(m[1], 64)
	if err != nil || pageLeft < bal.Scopes[0].RhoRemaining*(1-1e-3) || pageLeft >= bal.Scopes[0].RhoBudget {
		t.Errorf("page: ρ left %q; ledger after the page: %g of %g", m[1], bal.Scopes[0].RhoRemaining, bal.Scopes[0].RhoBudget)
	}
	for _, want := range []string{"scope <span id=\"scope\">" + e.scope + "</span>", `id="rho-left"`, `id="ranking"`, `id="runs"`,
		"<td>release</td>", "<td>locate</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	// The ranking shown is a succeeded localisation of the scope, on a
	// succeeded release of it.
	ids := regexp.MustCompile(`run (run-\S+) on release (run-\S+)</p>`).FindStringSubmatch(page)
	if ids == nil {
		t.Fatalf("the page names no locate run:\n%s", page)
	}
	for i, cmd := range []string{"locate", "release"} {
		if r := query(t, d, "MATCH (r:GraphcloakRun {scope: $s, command: $c, runId: $id, status: 'succeeded'}) RETURN count(r)",
			map[string]any{"s": e.scope, "c": cmd, "id": ids[i+1]}); r[0].Values[0] != int64(1) {
			t.Errorf("the page's %s run %s is not a succeeded %s of the scope", cmd, ids[i+1], cmd)
		}
	}
	if n := strings.Count(page, `class="node"`); n != 120 {
		t.Errorf("the picture has %d node marks, want the 120 nodes", n)
	}
	// The browser parsed the same page: its DOM holds the ranking and the
	// inline SVG.
	for _, want := range []string{e.scope, `id="ranking"`, "<svg", `class="node"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM lacks %q", want)
		}
	}

	// The screenshot is not blank and shows the colour of the most likely
	// node (read from the page's SVG).
	fill := topNodeFill(t, page)
	img := decodePNGFile(t, shot)
	if n := distinctColours(img, 64); n < 8 {
		t.Errorf("screenshot %s has %d colours: blank?", shot, n)
	}
	n := pixelsNear(img, fill, 12)
	t.Logf("screenshot: %d pixels of the top node's colour %v", n, fill)
	if n < 20 {
		t.Errorf("screenshot has %d pixels of the top node's colour %v (kept in %s)", n, fill, keep(t, shot))
	}
	// scripts/figures.sh keeps the screenshot for README.
	if dir := os.Getenv("GRAPHCLOAK_FIGURES_DIR"); dir != "" {
		data, err := os.ReadFile(shot)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "serve-page.png"), data, 0o644)
		}
		if err != nil {
			t.Errorf("keeping the screenshot: %v", err)
		}
	}
}

var rankingSection = regexp.MustCompile(`(?s)<table id="ranking">.*</div>`)

// rankingOf is the page's ranking table and picture ("" if none).
func rankingOf(page string) string {
	return rankingSection.FindString(page)
}

// chromiumPath returns a headless Chromium (scripts/chromium.sh installs
// Debian's package): skipped with the reason when there is none, failed on
// CI.
func chromiumPath(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "scripts", "chromium.sh"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := fmt.Sprintf("no headless Chromium (scripts/chromium.sh: %v): %s", err, stderr.String())
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return strings.TrimSpace(string(out))
}

// runChromium runs the browser headless on url and returns its stdout.
func runChromium(t *testing.T, browser string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, browser, all...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", browser, args, err, stderr.String())
	}
	return string(out)
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v\n%s", url, res.StatusCode, err, body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("GET %s: Content-Type %q", url, ct)
	}
	return string(body)
}

var nodeCircle = regexp.MustCompile(`<circle class="node"[^>]* fill="rgba\((\d+),(\d+),(\d+),[0-9.]+\)"[^>]*><title>node [^:]*: [^<]* ([-0-9.e+]+)</title>`)

// topNodeFill is the fill of the node with the largest value in the page's
// picture.
func topNodeFill(t *testing.T, page string) [3]uint8 {
	t.Helper()
	best, fill := -1.0, [3]uint8{}
	for _, m := range nodeCircle.FindAllStringSubmatch(page, -1) {
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil || v <= best {
			continue
		}
		best = v
		for i := range fill {
			c, _ := strconv.Atoi(m[i+1])
			fill[i] = uint8(c)
		}
	}
	if best < 0 {
		t.Fatal("no node in the page's picture")
	}
	return fill
}

func decodePNGFile(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// distinctColours counts the colours of img, up to limit.
func distinctColours(img image.Image, limit int) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if len(seen) >= limit {
				return limit
			}
		}
	}
	return len(seen)
}

// pixelsNear counts the pixels within tol (per channel) of c.
func pixelsNear(img image.Image, c [3]uint8, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if abs(int(r>>8)-int(c[0])) <= tol && abs(int(g>>8)-int(c[1])) <= tol && abs(int(bl>>8)-int(c[2])) <= tol {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// keep copies a failed test's file where it survives the test.
func keep(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return path
	}
	dst := filepath.Join(os.TempDir(), filepath.Base(t.Name())+"-"+filepath.Base(path))
	if os.WriteFile(dst, data, 0o644) != nil {
		return path
	}
	return dst
}
