// Package svgtest reads back what tests check in an SVG picture: its
// circles (class, fill, tooltip) and its texts.
package svgtest

import (
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"
)

// Doc is what a test reads back from an SVG file: every circle (class,
// fill, tooltip) and every text (gonum/plot's and the graph pictures').
type Doc struct {
	Circles []Circle
	Texts   []string
}

type Circle struct {
	Class, Fill, Title string
}

// Read parses the SVG file at path, failing t when it is not valid XML.
func Read(t testing.TB, path string) Doc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc Doc
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	var inText, inTitle bool
	var cur strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return doc
		}
		if err != nil {
			t.Fatalf("%s: invalid SVG: %v", path, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "circle":
				doc.Circles = append(doc.Circles, circleOf(e))
			case "text":
				inText = true
				cur.Reset()
			case "title":
				inTitle = true
				cur.Reset()
			}
		case xml.CharData:
			if inText || inTitle {
				cur.Write(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "text":
				inText = false
				doc.Texts = append(doc.Texts, strings.TrimSpace(cur.String()))
			case "title":
				inTitle = false
				if n := len(doc.Circles); n > 0 {
					doc.Circles[n-1].Title = cur.String()
				}
			}
		}
	}
}

// circleOf is the circle of a <circle> element: its class and fill (its
// title comes later, from the <title> inside it).
func circleOf(e xml.StartElement) Circle {
	c := Circle{}
	for _, a := range e.Attr {
		switch a.Name.Local {
		case "class":
			c.Class = a.Value
		case "fill":
			c.Fill = a.Value
		}
	}
	return c
}

// HasText reports whether some text of the document contains s.
func (d Doc) HasText(s string) bool {
	for _, t := range d.Texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// Count is the number of circles of the class.
func (d Doc) Count(class string) int {
	n := 0
	for _, c := range d.Circles {
		if c.Class == class {
			n++
		}
	}
	return n
}
