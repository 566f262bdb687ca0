package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
)

// GT is a graph read from a graph-tool .gt file: the adjacency (vertex
// indices 0..N−1) and the property maps stored with it.
type GT struct {
	Comment  string
	Directed bool
	N        int
	// Edges in file order (the order of the adjacency lists); an edge
	// property's values are in this order. For undirected graphs each edge
	// appears once.
	Edges       [][2]int
	GraphProps  map[string]Property
	VertexProps map[string]Property // N values each
	EdgeProps   map[string]Property // len(Edges) values each
}

// ValueType is the type code of a property map in the .gt format.
type ValueType uint8

// Value types of the .gt format, in their file encoding.
const (
	Bool ValueType = iota
	Int16
	Int32
	Int64
	Double
	LongDouble
	String
	VectorBool
	VectorInt16
	VectorInt32
	VectorInt64
	VectorDouble
	VectorLongDouble
	VectorString
	PythonObject
)

var typeNames = [...]string{"bool", "int16_t", "int32_t", "int64_t", "double", "long double", "string",
	"vector<bool>", "vector<int16_t>", "vector<int32_t>", "vector<int64_t>", "vector<double>",
	"vector<long double>", "vector<string>", "python::object"}

func (t ValueType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// Property is one property map. Values holds one Go value per key, typed by
// Type: bool, int16, int32, int64, float64 (double and long double), string
// (also for pickled python::object), or a slice of those for the vector
// types.
type Property struct {
	Name   string
	Type   ValueType
	Values []any
}

// Int returns value i as an int64 for the integer and bool types.
func (p Property) Int(i int) (int64, bool) {
	switch v := p.Values[i].(type) {
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	}
	return 0, false
}

// Label returns value i as a string: strings as they are, numbers in
// decimal. It is how ground-truth labels (football's "value", polbooks'
// "value") are compared whatever type the file gives them.
func (p Property) Label(i int) string {
	switch v := p.Values[i].(type) {
	case string:
		return v
	case float64:
		return fmt.Sprint(v)
	}
	if x, ok := p.Int(i); ok {
		return fmt.Sprint(x)
	}
	return fmt.Sprint(p.Values[i])
}

// FormatError reports a malformed .gt file, with the byte offset (in the
// uncompressed stream) where reading failed.
type FormatError struct {
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("datasets: gt file: at byte %d: %s", e.Offset, e.Msg)
}

// ErrNotGT is wrapped by the FormatError for a file that does not start
// with the .gt magic bytes.
var ErrNotGT = errors.New("not a graph-tool .gt file")

// gtMagic is "⛾ gt" in UTF-8.
var gtMagic = []byte{0xe2, 0x9b, 0xbe, 0x20, 0x67, 0x74}

// maxGTCount bounds counts read from a file before allocating for them, so
// a corrupt length cannot ask for terabytes.
const maxGTCount = 1 << 31

// ReadGT reads a graph in graph-tool's binary format (version 1), plain
// or gzip-compressed (detected from the first bytes). The layout, from
// graph-tool's documentation ("The gt file format"):
//
//	magic "⛾ gt" (6 bytes) · version u8 (1) · big-endian flag u8
//	comment: u64 length + bytes
//	directed u8 · N u64
//	for each vertex: u64 k, then k neighbour indices of width
//	        1, 2, 4 or 8 bytes (the smallest unsigned type whose
//	        maximum is ≥ N)
//	u64 property count; each: key type u8 (0 graph, 1 vertex, 2 edge),
//	        name (u64 length + bytes), value type u8, then one value
//	        (graph), N values (vertex) or E values (edge, in edge order)
//
// Scalars are in the file's byte order; strings and vectors are a u64
// length followed by the elements. long double values (x87 80-bit extended
// in 16 bytes, as written on x86-64) are converted to the nearest float64.
func ReadGT(r io.Reader) (*GT, error) {
	return readGT(r, false)
}

// ReadGTStructure is ReadGT without the property maps: each value is read
// past (a string or vector by its length) and none is kept.
func ReadGTStructure(r io.Reader) (*GT, error) {
	return readGT(r, true)
}

func readGT(r io.Reader, skipProps bool) (*GT, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(2)
	if err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &FormatError{0, "gzip: " + err.Error()}
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	d := &gtDecoder{r: br, skipProps: skipProps}
	return d.graph()
}

type gtDecoder struct {
	r         *bufio.Reader
	off       int64
	order     binary.ByteOrder
	buf       [16]byte
	skipProps bool // read past property values (ReadGTStructure)
}

func (d *gtDecoder) fail(format string, a ...any) error {
	return &FormatError{d.off, fmt.Sprintf(format, a...)}
}

func (d *gtDecoder) read(n int) ([]byte, error) {
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, d.fail("unexpected end of file")
		}
		return nil, d.fail("%v", err)
	}
	d.off += int64(n)
	return b, nil
}

func (d *gtDecoder) u8() (uint8, error) {
	b, err := d.read(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (d *gtDecoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return d.order.Uint64(b), nil
}

// count reads a u64 length and checks it against a sane limit.
func (d *gtDecoder) count(what string) (int, error) {
	v, err := d.u64()
	if err != nil {
		return 0, err
	}
	if v > maxGTCount {
		return 0, d.fail("%s %d is implausibly large", what, v)
	}
	return int(v), nil
}

func (d *gtDecoder) str() (string, error) {
	n, err := d.count("string length")
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", d.fail("unexpected end of file in a string of %d bytes", n)
	}
	d.off += int64(n)
	return string(b), nil
}

func (d *gtDecoder) graph() (*GT, error) {
	if err := d.header(); err != nil {
		return nil, err
	}
	g := &GT{GraphProps: map[string]Property{}, VertexProps: map[string]Property{}, EdgeProps: map[string]Property{}}
	var err error
	if g.Comment, err = d.str(); err != nil {
		return nil, err
	}
	directed, err := d.u8()
	if err != nil {
		return nil, err
	}
	g.Directed = directed != 0
	if g.N, err = d.count("vertex count"); err != nil {
		return nil, err
	}
	if err := d.adjacency(g); err != nil {
		return nil, err
	}
	np, err := d.count("property count")
	if err != nil {
		return nil, err
	}
	for range np {
		if err := d.property(g); err != nil {
			return nil, err
		}
	}
	if _, err := d.r.ReadByte(); err != io.EOF {
		return nil, d.fail("unexpected data after the last property")
	}
	return g, nil
}

// header reads the magic bytes, the version and the byte order.
func (d *gtDecoder) header() error {
	magic, err := d.read(6)
	if err != nil || !bytes.Equal(magic, gtMagic) {
		return &FormatError{0, ErrNotGT.Error()}
	}
	version, err := d.u8()
	if err != nil {
		return err
	}
	if version != 1 {
		return d.fail("unsupported version %d (want 1)", version)
	}
	bigEndian, err := d.u8()
	if err != nil {
		return err
	}
	d.order = binary.LittleEndian
	if bigEndian == 1 {
		d.order = binary.BigEndian
	} else if bigEndian != 0 {
		return d.fail("endianness flag %d (want 0 or 1)", bigEndian)
	}
	return nil
}

// adjacency reads the g.N out-neighbour lists into g.Edges.
func (d *gtDecoder) adjacency(g *GT) error {
	width := 8
	switch n := uint64(g.N); { // as graph-tool's write_adjacency chooses
	case n <= math.MaxUint8:
		width = 1
	case n <= math.MaxUint16:
		width = 2
	case n <= math.MaxUint32:
		width = 4
	}
	for v := 0; v < g.N; v++ {
		k, err := d.count("neighbour count")
		if err != nil {
			return err
		}
		for range k {
			b, err := d.read(width)
			if err != nil {
				return err
			}
			var u uint64
			switch width {
			case 1:
				u = uint64(b[0])
			case 2:
				u = uint64(d.order.Uint16(b))
			case 4:
				u = uint64(d.order.Uint32(b))
			default:
				u = d.order.Uint64(b)
			}
			if u >= uint64(g.N) {
				return d.fail("vertex %d has neighbour %d, but there are only %d vertices", v, u, g.N)
			}
			g.Edges = append(g.Edges, [2]int{v, int(u)})
		}
	}
	return nil
}

// property reads one property map (graph, vertex or edge) into g.
func (d *gtDecoder) property(g *GT) error {
	kind, err := d.u8()
	if err != nil {
		return err
	}
	name, err := d.str()
	if err != nil {
		return err
	}
	t, err := d.u8()
	if err != nil {
		return err
	}
	if int(t) >= len(typeNames) {
		return d.fail("property %q has unknown value type %d", name, t)
	}
	var n int
	var dst map[string]Property
	switch kind {
	case 0:
		n, dst = 1, g.GraphProps
	case 1:
		n, dst = g.N, g.VertexProps
	case 2:
		n, dst = len(g.Edges), g.EdgeProps
	default:
		return d.fail("property %q has unknown key type %d (want 0 graph, 1 vertex, 2 edge)", name, kind)
	}
	if d.skipProps {
		for range n {
			if err := d.skipValue(ValueType(t)); err != nil {
				return err
			}
		}
		return nil
	}
	p := Property{Name: name, Type: ValueType(t), Values: make([]any, n)}
	for i := range p.Values {
		if p.Values[i], err = d.value(p.Type); err != nil {
			return err
		}
	}
	dst[name] = p
	return nil
}

func (d *gtDecoder) value(t ValueType) (any, error) {
	if t >= VectorBool && t <= VectorString {
		n, err := d.count("vector length")
		if err != nil {
			return nil, err
		}
		et := t - VectorBool
		switch et {
		case Bool:
			return vec[bool](d, n, et)
		case Int16:
			return vec[int16](d, n, et)
		case Int32:
			return vec[int32](d, n, et)
		case Int64:
			return vec[int64](d, n, et)
		case Double, LongDouble:
			return vec[float64](d, n, et)
		default:
			return vec[string](d, n, et)
		}
	}
	switch t {
	case Bool:
		b, err := d.u8()
		return b != 0, err
	case Int16:
		b, err := d.read(2)
		if err != nil {
			return nil, err
		}
		return int16(d.order.Uint16(b)), nil
	case Int32:
		b, err := d.read(4)
		if err != nil {
			return nil, err
		}
		return int32(d.order.Uint32(b)), nil
	case Int64:
		v, err := d.u64()
		return int64(v), err
	case Double:
		v, err := d.u64()
		return math.Float64frombits(v), err
	case LongDouble:
		b, err := d.read(16)
		if err != nil {
			return nil, err
		}
		return extendedToFloat64(b, d.order), nil
	default: // String, PythonObject
		return d.str()
	}
}

// valueSize is the bytes of one scalar of type t, 0 for a string or
// Python object (a u64 length, then its bytes).
func valueSize(t ValueType) int {
	switch t {
	case Bool:
		return 1
	case Int16:
		return 2
	case Int32:
		return 4
	case Int64, Double:
		return 8
	case LongDouble:
		return 16
	}
	return 0
}

// skipValue reads past one value of type t, as value reads it.
func (d *gtDecoder) skipValue(t ValueType) error {
	n, et := 1, t
	if t >= VectorBool && t <= VectorString {
		var err error
		if n, err = d.count("vector length"); err != nil {
			return err
		}
		et = t - VectorBool
	}
	if size := valueSize(et); size > 0 {
		return d.discard(int64(n) * int64(size))
	}
	for range n { // strings, each after its length
		k, err := d.count("string length")
		if err != nil {
			return err
		}
		if err := d.discard(int64(k)); err != nil {
			return err
		}
	}
	return nil
}

// discard reads past n bytes.
func (d *gtDecoder) discard(n int64) error {
	got, err := d.r.Discard(int(n))
	d.off += int64(got)
	if err != nil {
		return d.fail("unexpected end of file")
	}
	return nil
}

func vec[T any](d *gtDecoder, n int, et ValueType) ([]T, error) {
	out := make([]T, 0, min(n, 1<<16))
	for range n {
		v, err := d.value(et)
		if err != nil {
			return nil, err
		}
		out = append(out, v.(T))
	}
	return out, nil
}

// extendedToFloat64 converts an x87 80-bit extended value (the first 10
// bytes of the 16, in the file's byte order) to the nearest float64.
func extendedToFloat64(b []byte, order binary.ByteOrder) float64 {
	var mant uint64
	var se uint16
	if order == binary.LittleEndian {
		mant = binary.LittleEndian.Uint64(b[0:8])
		se = binary.LittleEndian.Uint16(b[8:10])
	} else { // big-endian platforms pad at the front
		se = binary.BigEndian.Uint16(b[6:8])
		mant = binary.BigEndian.Uint64(b[8:16])
	}
	sign := se>>15 != 0
	exp := int(se & 0x7fff)
	var f float64
	switch {
	case exp == 0x7fff && mant<<1 == 0:
		f = math.Inf(1)
	case exp == 0x7fff:
		f = math.NaN()
	default:
		// value = mant · 2^(exp − 16383 − 63), rounded once by big.Float.
		x := new(big.Float).SetUint64(mant)
		x.SetMantExp(x, exp-16383-63)
		f, _ = x.Float64()
	}
	if sign {
		f = -f
	}
	return f
}
