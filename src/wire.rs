//! The wire format, declared once: every type the package hands out or reads back (events,
//! message parts, patches, the chat state, saved messages, requests) is written with [`wire!`],
//! which gives its Rust type, its JSON keys and which fields are left out when empty. From that
//! one declaration come the JSON writer ([`crate::json::ToJson`], what the JS bindings hand out),
//! `serde::Serialize` (for Rust callers; both write the same text, key for key), and, for the
//! types a saved conversation holds, the reader (`from_value`).
//!
//! A declaration reads like the type it makes, with three additions:
//!
//! - `field: Type as "key"` names a key other than the field's name (`isLoading`);
//! - `field: Type => omit_empty` leaves the field out while it is empty (`None`, `[]`, `false`,
//!   `0`); `=> flatten` writes a map's entries as fields of the object; `=> or_default` reads a
//!   missing field as its type's default; `=> skip` is never written (a handle the package's
//!   own code carries with a value, not part of it);
//! - `struct Name keys NameKeys` also makes `Name::KEY`, each field's key by field name (the
//!   state's patches name the fields they change this way), and `reads pub from_value` makes the
//!   reader, with that visibility and name. An `enum Name tag "type"` is an object per variant,
//!   its kind the `tag` key's word (`Status "status" { … }`; `reads from_value` makes its reader),
//!   and a variant may have one `#[cfg(…)]` after its documentation (a feature that leaves it out;
//!   a reader's "expected one of" message still names that variant's kind);
//!   an `enum Name words` is one word per variant, with `Name::ALL` and `as_str`.
//!
//! A derive macro would need a crate of its own (a proc-macro crate, and `syn` in the build);
//! the declarations need no more than this.

use serde_json::Value;

use crate::json::{Fields, JsonOut, Object};

/// Declares one wire type (see the module's documentation).
macro_rules! wire {
    // An object: a struct with named fields.
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident $(keys $keys:ident)? $(reads $rvis:vis $reader:ident)? { $($body:tt)* }
    ) => {
        $crate::wire::wire!(@struct [$(#[$attr])*] $vis $name [$($keys)?] [$($rvis $reader)?] { $($body)* });
    };
    (@struct [$($attr:tt)*] $vis:vis $name:ident [$($keys:ident)?] [$($rvis:vis $reader:ident)?] $body:tt) => {
        $crate::wire::wire!(@struct_type [$($attr)*] $vis $name $body);
        $crate::wire::wire!(@struct_out $name $body);
        $( $crate::wire::wire!(@struct_keys $vis $name $keys $body); )?
        $( $crate::wire::wire!(@struct_read $name $rvis $reader $body); )?
    };
    // One object per variant, its kind under `tag`.
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident tag $tag:literal $(reads $reader:ident)? { $($body:tt)* }
    ) => {
        $crate::wire::wire!(@tagged [$(#[$attr])*] $vis $name $tag [$($reader)?] { $($body)* });
    };
    (@tagged [$($attr:tt)*] $vis:vis $name:ident $tag:literal [$($reader:ident)?] $body:tt) => {
        $crate::wire::wire!(@tagged_type [$($attr)*] $vis $name $body);
        $crate::wire::wire!(@tagged_out $name $tag $body);
        $( $crate::wire::wire!(@tagged_read $name $tag $reader $body); )?
    };
    // One word per variant.
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident words {
            $( $(#[doc = $doc:literal])* $variant:ident $word:literal ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// Its word on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $word, )*
                }
            }
        }

        impl $crate::json::ToJson for $name {
            fn write_json<'v>(&'v self, out: &mut $crate::json::JsonOut<'v>) {
                $crate::json::ToJson::write_json(self.as_str(), out);
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };

    (@struct_type [$($attr:tt)*] $vis:vis $name:ident {
        $( $(#[doc = $doc:literal])* $fvis:vis $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
    }) => {
        $($attr)*
        $vis struct $name {
            $( $(#[doc = $doc])* $fvis $field: $ty, )*
        }
    };
    (@struct_out $name:ident {
        $( $(#[doc = $doc:literal])* $fvis:vis $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
    }) => {
        impl $crate::json::ToJson for $name {
            fn write_json<'v>(&'v self, out: &mut $crate::json::JsonOut<'v>) {
                let mut object = $crate::wire::object(out);
                $( $crate::wire::wire!(@write object, $crate::wire::wire!(@key $field $($key)?), &self.$field $(, $mode)?); )*
                object.end();
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(None)?;
                $( $crate::wire::wire!(@serialize map, $crate::wire::wire!(@key $field $($key)?), &self.$field $(, $mode)?); )*
                map.end()
            }
        }
    };
    (@struct_keys $vis:vis $name:ident $keys:ident {
        $( $(#[doc = $doc:literal])* $fvis:vis $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
    }) => {
        #[doc = concat!("The JSON key of each field of [`", stringify!($name), "`].")]
        #[derive(Debug, Clone, Copy)]
        #[allow(missing_docs)]
        $vis struct $keys {
            $( pub $field: &'static str, )*
        }

        impl $name {
            /// Each field's JSON key.
            pub const KEY: $keys = $keys { $( $field: $crate::wire::wire!(@key $field $($key)?), )* };
        }
    };
    (@struct_read $name:ident $rvis:vis $reader:ident {
        $( $(#[doc = $doc:literal])* $fvis:vis $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
    }) => {
        impl $name {
            /// Reads it back from its JSON: a missing or `null` field is its default, or refused when
            /// it has none; unknown fields are ignored.
            $rvis fn $reader(value: &serde_json::Value) -> Result<$name, String> {
                let fields = $crate::json::Fields::of(value)?;
                Ok($name { $( $field: $crate::wire::wire!(@read fields, $crate::wire::wire!(@key $field $($key)?), $ty $(, $mode)?), )* })
            }
        }

        $crate::wire::wire!(@readable $name $reader);
    };

    (@tagged_type [$($attr:tt)*] $vis:vis $name:ident {
        $(
            $(#[doc = $vdoc:literal])* $(#[cfg($vcfg:meta)])? $variant:ident $kind:literal $({
                $( $(#[doc = $doc:literal])* $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
            })?
        ),* $(,)?
    }) => {
        $($attr)*
        $vis enum $name {
            $( $(#[doc = $vdoc])* $(#[cfg($vcfg)])? $variant $({ $( $(#[doc = $doc])* $field: $ty, )* })?, )*
        }
    };
    (@tagged_out $name:ident $tag:literal {
        $(
            $(#[doc = $vdoc:literal])* $(#[cfg($vcfg:meta)])? $variant:ident $kind:literal $({
                $( $(#[doc = $doc:literal])* $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
            })?
        ),* $(,)?
    }) => {
        impl $crate::json::ToJson for $name {
            fn write_json<'v>(&'v self, out: &mut $crate::json::JsonOut<'v>) {
                match self {
                    $( $(#[cfg($vcfg)])? $name::$variant { $($($field,)*)? } => {
                        let mut object = $crate::wire::tagged(out, $tag, $kind);
                        $($( $crate::wire::wire!(@write object, $crate::wire::wire!(@key $field $($key)?), $field $(, $mode)?); )*)?
                        object.end();
                    } )*
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(None)?;
                match self {
                    $( $(#[cfg($vcfg)])? $name::$variant { $($($field,)*)? } => {
                        map.serialize_entry($tag, $kind)?;
                        $($( $crate::wire::wire!(@serialize map, $crate::wire::wire!(@key $field $($key)?), $field $(, $mode)?); )*)?
                    } )*
                }
                map.end()
            }
        }
    };
    (@tagged_read $name:ident $tag:literal $reader:ident {
        $(
            $(#[doc = $vdoc:literal])* $(#[cfg($vcfg:meta)])? $variant:ident $kind:literal $({
                $( $(#[doc = $doc:literal])* $field:ident : $ty:ty $(as $key:literal)? $(=> $mode:ident)? ),* $(,)?
            })?
        ),* $(,)?
    }) => {
        impl $name {
            /// Reads it back from its JSON: its kind from the tag, then its fields as an object's
            /// (a missing or `null` field is its default, or refused when it has none).
            pub fn $reader(value: &serde_json::Value) -> Result<$name, String> {
                let fields = $crate::json::Fields::of(value)?;
                match fields.string($tag)?.as_str() {
                    $( $(#[cfg($vcfg)])? $kind => Ok($name::$variant {
                        $($( $field: $crate::wire::wire!(@read fields, $crate::wire::wire!(@key $field $($key)?), $ty $(, $mode)?), )*)?
                    }), )*
                    other => Err($crate::wire::unknown($tag, other, concat!("expected one of" $(, " \"", $kind, "\"")*))),
                }
            }
        }

        $crate::wire::wire!(@readable $name $reader);
    };

    // A readable type as a field: required, or optional as `Option`.
    (@readable $name:ident $reader:ident) => {
        impl $crate::wire::ReadField for $name {
            fn read(fields: &$crate::json::Fields<'_>, key: &str) -> Result<Self, String> {
                fields.opt(key, $name::$reader)?.ok_or_else(|| $crate::wire::missing(key))
            }
        }

        impl $crate::wire::ReadValue for $name {
            fn read_value(value: &serde_json::Value) -> Result<Self, String> {
                $name::$reader(value)
            }
        }

        impl $crate::wire::ReadField for Option<$name> {
            fn read(fields: &$crate::json::Fields<'_>, key: &str) -> Result<Self, String> {
                fields.opt(key, $name::$reader)
            }
        }
    };

    (@key $field:ident) => { stringify!($field) };
    (@key $field:ident $key:literal) => { $key };

    (@write $object:ident, $key:expr, $value:expr) => { $object.field($key, $value); };
    (@write $object:ident, $key:expr, $value:expr, or_default) => { $object.field($key, $value); };
    (@write $object:ident, $key:expr, $value:expr, omit_empty) => {
        $object.field_if(!$crate::wire::Empty::is_empty($value), $key, $value);
    };
    (@write $object:ident, $key:expr, $value:expr, flatten) => { $object.flatten($value); };
    (@write $object:ident, $key:expr, $value:expr, skip) => { let _ = $value; };

    (@serialize $map:ident, $key:expr, $value:expr) => { $map.serialize_entry($key, $value)?; };
    (@serialize $map:ident, $key:expr, $value:expr, or_default) => { $map.serialize_entry($key, $value)?; };
    (@serialize $map:ident, $key:expr, $value:expr, omit_empty) => {
        if !$crate::wire::Empty::is_empty($value) {
            $map.serialize_entry($key, $value)?;
        }
    };
    (@serialize $map:ident, $key:expr, $value:expr, flatten) => {
        for (key, value) in $value {
            $map.serialize_entry(key, value)?;
        }
    };
    (@serialize $map:ident, $key:expr, $value:expr, skip) => { let _ = $value; };

    (@read $fields:ident, $key:expr, $ty:ty) => { <$ty as $crate::wire::ReadField>::read(&$fields, $key)? };
    (@read $fields:ident, $key:expr, $ty:ty, omit_empty) => { <$ty as $crate::wire::ReadField>::read(&$fields, $key)? };
    (@read $fields:ident, $key:expr, $ty:ty, or_default) => {
        <Option<$ty> as $crate::wire::ReadField>::read(&$fields, $key)?.unwrap_or_default()
    };
}

pub(crate) use wire;

/// Every writer's object begins here: one copy of the opening in the module, not one per type
/// (the module is a download).
#[inline(never)]
pub(crate) fn object<'o, 'v>(out: &'o mut JsonOut<'v>) -> Object<'o, 'v> {
    Object::new(out)
}

/// [`object`] of a tagged kind.
#[inline(never)]
pub(crate) fn tagged<'o, 'v>(out: &'o mut JsonOut<'v>, tag: &str, kind: &str) -> Object<'o, 'v> {
    Object::tagged(out, tag, kind)
}

/// A value that is left out while empty (`=> omit_empty`).
pub(crate) trait Empty {
    fn is_empty(&self) -> bool;
}

impl<T> Empty for Option<T> {
    fn is_empty(&self) -> bool {
        self.is_none()
    }
}

impl<T> Empty for Vec<T> {
    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
}

impl Empty for bool {
    fn is_empty(&self) -> bool {
        !*self
    }
}

impl Empty for u64 {
    fn is_empty(&self) -> bool {
        *self == 0
    }
}

/// A field's value read from a saved object, by its type: a string or an index is required, a
/// flag is `false`, a list empty and a JSON value `null` when missing.
pub(crate) trait ReadField: Sized {
    fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String>;
}

/// A value of a list read back (`Vec<T>` fields).
pub(crate) trait ReadValue: Sized {
    fn read_value(value: &Value) -> Result<Self, String>;
}

pub(crate) fn missing(key: &str) -> String {
    format!("missing field `{key}`")
}

/// A tagged object of a kind its type does not have: `expected` says which it has.
pub(crate) fn unknown(tag: &str, kind: &str, expected: &str) -> String {
    format!("unknown {tag} {}, {expected}", crate::json::to_json(kind))
}

/// The leaves, each read by its reader in [`Fields`].
macro_rules! read_by {
    ($($ty:ty => $read:expr,)*) => {
        $(
            impl ReadField for $ty {
                fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String> {
                    $read(fields, key)
                }
            }
        )*
    };
}

read_by! {
    String => Fields::string,
    Option<String> => Fields::opt_string,
    bool => Fields::bool,
    u32 => Fields::index,
    Option<u64> => Fields::count,
    Value => |fields: &Fields<'_>, key| Ok(fields.value(key)),
    crate::json::Shared => |fields: &Fields<'_>, key| Ok(crate::json::Shared::new(fields.value(key))),
    Option<Value> => |fields: &Fields<'_>, key| Ok(fields.opt_value(key)),
}

impl<T: ReadValue> ReadField for Vec<T> {
    fn read(fields: &Fields<'_>, key: &str) -> Result<Self, String> {
        fields.list(key, T::read_value)
    }
}
