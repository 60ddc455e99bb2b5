package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// checkStrictJSON reports what encoding/json lets through in a request
// body that decodes into a value of v's type: an object key given twice
// (encoding/json keeps the last value) and, for objects decoded into a
// struct, a key that is not exactly one of the struct's JSON field names
// (encoding/json matches "Category" and "CATEGORY" to "category"). data
// must be one well-formed JSON value; the caller decodes it first.
func checkStrictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return checkStrictValue(dec, reflect.TypeOf(v), "")
}

// checkStrictValue reads one value from dec. t is the Go type it decodes
// into, or nil when that does not matter (an interface, a scalar).
func checkStrictValue(dec *json.Decoder, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := checkStrictValue(dec, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	case json.Delim('{'):
		var fields map[string]reflect.Type // nil: any key (a map, an interface)
		var elem reflect.Type
		switch {
		case t != nil && t.Kind() == reflect.Struct:
			fields = jsonFields(t)
		case t != nil && t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			at := path + "." + key
			if path == "" {
				at = key
			}
			if seen[key] {
				return fmt.Errorf("duplicate key %q", at)
			}
			seen[key] = true
			ft := elem
			if fields != nil {
				var ok bool
				if ft, ok = fields[key]; !ok {
					return fmt.Errorf("unknown field %q (names are case-sensitive: %s)", at, quotedNames(fields))
				}
			}
			if err := checkStrictValue(dec, ft, at); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	}
	return nil // a scalar
}

// jsonFields maps the JSON names of a struct's exported fields to their
// types, as encoding/json names them (the tag's name, else the field's).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// quotedNames lists the names of fields, sorted and quoted.
func quotedNames(fields map[string]reflect.Type) string {
	names := slices.Sorted(maps.Keys(fields))
	for i, n := range names {
		names[i] = strconv.Quote(n)
	}
	return strings.Join(names, ", ")
}
