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

// TestRegistry checks what the compiler cannot: that every entry's type
// is known by its name and found again by the encoder, and that a type
// registered twice is refused.
func TestRegistry(t *testing.T) {
	for _, k := range wireKinds() {
		if k.name == "" || k.name != reflect.TypeOf(k.zero).Elem().Name() {
			t.Errorf("type %d: name %q for %T", k.typ, k.name, k.zero)
		}
		if got, ok := typeOf(k.zero); !ok || got != k.typ {
			t.Errorf("typeOf(%s) = %d, %v; want %d", k.name, got, ok, k.typ)
		}
		if kindAt(k.typ).name != k.name {
			t.Errorf("kindAt(%d) = %s, want %s", k.typ, kindAt(k.typ).name, k.name)
		}
	}
	for _, typ := range []msgType{0, msgType(len(messages)), 255} {
		if kindAt(typ) != nil {
			t.Errorf("kindAt(%d) = %s, want nil", typ, kindAt(typ).name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a type registered twice was accepted")
		}
	}()
	indexMessages([]messageKind{1: kindOf[Ping](), 2: kindOf[Reset](), 3: kindOf[Ping]()})
}

// TestWireUnregisteredMessage: a Message the registry does not know is an
// encode error, not a panic or a frame with a wrong type byte.
func TestWireUnregisteredMessage(t *testing.T) {
	_, err := EncodeMessage(unregisteredMessage{})
	if err == nil || !strings.Contains(err.Error(), "not registered") {
		t.Errorf("EncodeMessage = %v, want a \"not registered\" error", err)
	}
}

// unregisteredMessage implements Message but is not in messages, as a new
// message type is before its entry is added.
type unregisteredMessage struct{}

func (unregisteredMessage) marshal(*encoder)   {}
func (unregisteredMessage) unmarshal(*decoder) {}
