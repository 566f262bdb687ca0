package csvin

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func readAll(t *testing.T, in string) []Record {
	t.Helper()
	r := NewReader(strings.NewReader(in))
	var out []Record
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		out = append(out, rec)
	}
}

func TestRules(t *testing.T) {
	got := readAll(t, "\ufeff# comment\n a , b \n\n \t \n\"#c\",\" d\"\r\n  #e,f\n\"multi\nline\",g\nlast,row")
	want := []Record{
		{[]string{"a", "b"}, 2},
		{[]string{"#c", " d"}, 5},
		{[]string{"#e", "f"}, 6},
		{[]string{"multi\nline", "g"}, 7},
		{[]string{"last", "row"}, 9},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if !slices.Equal(got[i].Fields, want[i].Fields) || got[i].Line != want[i].Line {
			t.Errorf("record %d: got %q line %d, want %q line %d", i, got[i].Fields, got[i].Line, want[i].Fields, want[i].Line)
		}
	}
}

func TestErrorsNameLineNotContents(t *testing.T) {
	for _, in := range []string{"a,b\nse\"cret,1\n", "a,b\n\"secret,1\n", "a,b\n\"secret\"x,1\n"} {
		_, err := NewReader(strings.NewReader(in)).Read()
		if err != nil {
			t.Fatalf("first row: %v", err)
		}
		r := NewReader(strings.NewReader(in))
		_, _ = r.Read()
		_, err = r.Read()
		var e *Error
		if !errors.As(err, &e) || e.Line != 2 || strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: got %v, want a line-2 error without the contents", in, err)
		}
	}
}

// FuzzRoundTrip: any fields written by encoding/csv with every field quoted
// read back verbatim.
func FuzzRoundTrip(f *testing.F) {
	f.Add("a", "#b")
	f.Add(" x ", "y\r\nz")
	f.Add("\ufeff", `"q"`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsRune(a+b, '\r') {
			t.Skip() // encoding/csv rewrites \r\n inside quoted fields
		}
		var sb strings.Builder
		sb.WriteString(`"` + strings.ReplaceAll(a, `"`, `""`) + `","` + strings.ReplaceAll(b, `"`, `""`) + "\"\n")
		rec, err := NewReader(strings.NewReader(sb.String())).Read()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.Fields, []string{a, b}) {
			t.Fatalf("got %q, want %q", rec.Fields, []string{a, b})
		}
	})
}

// Unquoted simple rows agree with encoding/csv (trimmed).
func TestAgreesWithEncodingCSV(t *testing.T) {
	in := "a,b,1\nc d,e,2.5\n"
	want, err := csv.NewReader(strings.NewReader(in)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, in)
	for i := range want {
		if !slices.Equal(got[i].Fields, want[i]) {
			t.Errorf("row %d: %q vs %q", i, got[i].Fields, want[i])
		}
	}
}

func TestParseHeader(t *testing.T) {
	for s, want := range map[string]Header{"": HeaderAuto, "auto": HeaderAuto, "yes": HeaderYes, "no": HeaderNo, "TRUE": HeaderYes} {
		if h, err := ParseHeader(s); err != nil || h != want {
			t.Errorf("%q: %v %v", s, h, err)
		}
	}
	if _, err := ParseHeader("maybe"); err == nil {
		t.Error("maybe accepted")
	}
}

// readEvery reads every record with Read, or with ReadBytes (copying the
// fields), or with ReadLines split by SplitLine and ReadBytes where it
// gives no block, from a reader with the given buffer size.
func readEvery(in string, size int, fast bool) ([]Record, error) {
	return readWith(in, size, fast, false)
}

func readWith(in string, size int, fast, lines bool) ([]Record, error) {
	r := newReaderSize(strings.NewReader(in), size)
	var out []Record
	for {
		var rec Record
		var err error
		if lines {
			block, first, lerr := r.ReadLines()
			if lerr == io.EOF {
				return out, nil
			}
			if lerr != nil {
				return out, lerr
			}
			if block != nil {
				out = appendBlock(out, block, first)
				continue
			}
		}
		if fast {
			var f [][]byte
			f, rec.Line, err = r.ReadBytes()
			for _, b := range f {
				rec.Fields = append(rec.Fields, string(b))
			}
		} else {
			rec, err = r.Read()
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// appendBlock appends the records of a ReadLines block.
func appendBlock(out []Record, block []byte, line int) []Record {
	for len(block) > 0 {
		end := bytes.IndexByte(block, '\n')
		f, skip := SplitLine(block[:end], nil)
		if !skip {
			rec := Record{Line: line}
			for _, b := range f {
				rec.Fields = append(rec.Fields, string(b))
			}
			out = append(out, rec)
		}
		block, line = block[end+1:], line+1
	}
	return out
}

// ReadBytes, and ReadLines with SplitLine, must read exactly what Read
// reads — the same fields, lines and errors — with a buffer so small (16 bytes) that lines straddle it
// and with the default one.
func FuzzReadBytesAgreesWithRead(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "\ufeffsource,target\n#c\n 7 , 8 \r\n\n\"x,y\",z\n", "p,q", "a,\"b\nc\",d\n",
		"a\"b,c\n", "1,2,3\n#\n \t\n4,5\n", "long-key-beyond-sixteen-bytes,another-long-key-here\n1,2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, werr := readEvery(in, 16, false)
		for _, size := range []int{16, bufferSize} {
			got, gerr := readEvery(in, size, true)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("buffer %d: ReadBytes %v %v, Read %v %v", size, got, gerr, want, werr)
			}
			got, gerr = readWith(in, size, true, true)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("buffer %d: ReadLines %v %v, Read %v %v", size, got, gerr, want, werr)
			}
		}
	})
}
