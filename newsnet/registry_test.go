package newsnet

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestEveryMessageTypeIsRegistered type-checks this package's source and
// finds every type that implements Message: each must have an entry in
// messages, or it could be sent by nobody and decoded by nobody. (The
// registry cannot check this itself: Go lists no interface's
// implementations at run time.)
func TestEveryMessageTypeIsRegistered(t *testing.T) {
	fset := token.NewFileSet()
	names, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range names {
		// The files the compiler builds for this platform, without tests.
		if ok, err := build.Default.MatchFile(".", e.Name()); !ok || err != nil || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		nameImports(f)
		files = append(files, f)
	}
	// No imported package can implement Message (its methods are
	// unexported), so the imports are left unresolved rather than loaded,
	// which takes seconds: go/types reports each one and carries on with
	// the package's own types, ignoring uses of the unresolved packages.
	// Any other error would mean the check saw less than the compiler.
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) { return nil, errNotLoaded }),
		Error: func(err error) {
			if !strings.Contains(err.Error(), errNotLoaded.Error()) {
				t.Errorf("type-checking the package: %v", err)
			}
		},
	}
	pkg, _ := conf.Check("newsdesk/newsnet", fset, files, nil)
	iface := pkg.Scope().Lookup("Message").Type().Underlying().(*types.Interface)

	var implementations []string
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || types.IsInterface(tn.Type()) {
			continue
		}
		if types.Implements(tn.Type(), iface) || types.Implements(types.NewPointer(tn.Type()), iface) {
			implementations = append(implementations, name)
		}
	}
	if len(implementations) == 0 {
		t.Fatal("found no implementation of Message: the check is broken")
	}
	registered := map[string]bool{}
	for _, k := range wireKinds() {
		registered[k.name] = true
	}
	for _, name := range implementations {
		if !registered[name] {
			t.Errorf("%s implements Message but has no entry in messages (registry.go)", name)
		}
	}
}

var errNotLoaded = errors.New("imports are not loaded by this test")

// nameImports names every import of f explicitly, so that go/types binds an
// unresolved package under the name the code uses: for "math/rand/v2" it
// would guess "v2", not "rand".
func nameImports(f *ast.File) {
	for _, spec := range f.Imports {
		if spec.Name != nil {
			continue
		}
		elems := strings.Split(strings.Trim(spec.Path.Value, `"`), "/")
		name := elems[len(elems)-1]
		if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
			name = elems[len(elems)-2] // a major version suffix
		}
		spec.Name = ast.NewIdent(name)
	}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// TestRegistry checks what the compiler cannot: that messages reads as the
// append-only block (type-byte order), that every entry is found again by
// name and type byte, and that byte 0 or a byte claimed twice is refused.
func TestRegistry(t *testing.T) {
	for i, k := range messages {
		if k.name == "" || k.name != reflect.TypeOf(k.new()).Elem().Name() {
			t.Errorf("type %d: name %q for %T", k.typ, k.name, k.new())
		}
		if got, ok := typeOf(k.new()); !ok || got != k.typ {
			t.Errorf("typeOf(%s) = %d, %v; want %d, true", k.name, got, ok, k.typ)
		}
		if kindAt(k.typ) != &messages[i] {
			t.Errorf("kindAt(%d) is not %s", k.typ, k.name)
		}
		if i > 0 && k.typ <= messages[i-1].typ {
			t.Errorf("%s (type %d) listed after %s (type %d): keep messages in type-byte order",
				k.name, k.typ, messages[i-1].name, messages[i-1].typ)
		}
	}
	if kindAt(0) != nil || kindAt(255) != nil {
		t.Errorf("type bytes 0 and 255 are registered")
	}
	for _, ms := range [][]messageKind{
		{kindOf[Ping](), kindOf[Reset](), kindOf[Ping]()},
		{kindOf[Multicast](), kindOf[impostor]()},
		{kindOf[zeroByte]()},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("indexMessages accepted %s", kindNames(ms))
				}
			}()
			indexMessages(ms)
		}()
	}
}

func kindNames(ms []messageKind) []string {
	var names []string
	for _, k := range ms {
		names = append(names, k.name)
	}
	return names
}

// TestWireUnregisteredMessage: a Message under a type byte the registry
// does not know is an encode error, not a frame no peer can read.
func TestWireUnregisteredMessage(t *testing.T) {
	_, err := EncodeMessage(&unregistered{})
	if err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("EncodeMessage = %v, want a \"not registered\" error", err)
	}
}

// unregistered is a message type before its entry in messages is added;
// impostor one that claims a registered type byte (Multicast's); zeroByte
// one that claims the unused byte 0.
type (
	unregistered struct{}
	impostor     struct{}
	zeroByte     struct{}
)

func (*unregistered) msgType() msgType { return 200 }
func (*impostor) msgType() msgType     { return 9 }
func (*zeroByte) msgType() msgType     { return 0 }

func (*unregistered) marshal(*encoder)   {}
func (*unregistered) unmarshal(*decoder) {}
func (*impostor) marshal(*encoder)       {}
func (*impostor) unmarshal(*decoder)     {}
func (*zeroByte) marshal(*encoder)       {}
func (*zeroByte) unmarshal(*decoder)     {}
