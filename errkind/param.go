package errkind

import (
	"errors"
	"fmt"
	"strings"
)

// Param names a parameter of a library call in an error message ("epoch",
// "output file"). The message reads the name; a program that takes the
// parameter under another name (a command's flag) shows its own name with
// Render.
type Param string

// Message is an error whose text names parameters: Errorf's format with
// its arguments, where Param arguments are parameter names and error
// arguments are wrapped (%w) as by fmt.Errorf.
type Message struct {
	format string
	args   []any
}

// Errorf returns a *Message: fmt.Errorf(format, args...), whose Param
// arguments Render can show under the caller's names.
func Errorf(format string, args ...any) error { return &Message{format, args} }

func (m *Message) Error() string { return fmt.Errorf(m.format, m.args...).Error() }

// Unwrap returns the wrapped errors (the error arguments).
func (m *Message) Unwrap() []error {
	var errs []error
	for _, a := range m.args {
		if e, ok := a.(error); ok {
			errs = append(errs, e)
		}
	}
	return errs
}

// RenderText is m's text with each Param p written as name(p).
func (m *Message) RenderText(name func(Param) string) string {
	args := make([]any, len(m.args))
	for i, a := range m.args {
		switch a := a.(type) {
		case Param:
			args[i] = name(a)
		case error:
			args[i] = errors.New(Render(a, name))
		default:
			args[i] = a
		}
	}
	return fmt.Errorf(m.format, args...).Error()
}

// A Renderer is an error whose text names parameters: RenderText is its
// text with each parameter p written as name(p). *Message is one; an
// error type whose text names parameters implements it too.
type Renderer interface {
	error
	RenderText(name func(Param) string) string
}

// Render is err's text with every parameter its Renderers name written as
// name(p): a command passes its map of parameters to flags, so that the
// text names what its user typed. Render(err, nil) is err.Error().
func Render(err error, name func(Param) string) string {
	msg := err.Error()
	if name == nil {
		return msg
	}
	var walk func(error)
	walk = func(e error) {
		if r, ok := e.(Renderer); ok {
			// Its text is part of its wrappers' text verbatim: replace it
			// by its rendering (which renders what it wraps).
			msg = strings.Replace(msg, r.Error(), r.RenderText(name), 1)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			if w := u.Unwrap(); w != nil {
				walk(w)
			}
		case interface{ Unwrap() []error }:
			for _, w := range u.Unwrap() {
				walk(w)
			}
		}
	}
	walk(err)
	return msg
}
