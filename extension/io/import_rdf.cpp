#include "extension/io/import_rdf.h"

#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "extension/io/rdf_terms.h"
#include "extension/io/iri_reference.h"
#include "extension/io/turtle_lexer.h"

namespace datalog::ext::io {

namespace {

constexpr std::string_view kRdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

RdfTerm rdf_iri(std::string_view local) {
  return RdfTerm{RdfTerm::Kind::Iri, fmt::format("{}{}", kRdf, local), {}, 0};
}

RdfTerm node(EntityId id) { return RdfTerm{RdfTerm::Kind::Node, {}, {}, id}; }

using Kind = TurtleTokenKind;

// Statements, token by token, across lines. Anonymous blank nodes [ ... ] and collections
// ( ... ) nest, so what is open is a stack: the statement at the bottom, then one frame per
// '[' or '(' not yet closed.
class TurtleReader {
 public:
  explicit TurtleReader(ImportTarget& target) : target_(target), file_(target.file()), lexer_(file_) {
    frames_.emplace_back();
  }

  Status run() {
    std::string line;
    Status error;
    while (file_.next_line(&line)) {
      lexer_.start_line(line, file_.line_ended_with_cr());
      TurtleToken t;
      while (lexer_.next(&t, &error)) DATALOG_RETURN_IF_ERROR(take(t));
      DATALOG_RETURN_IF_ERROR(error);
    }
    DATALOG_RETURN_IF_ERROR(file_.status());
    DATALOG_RETURN_IF_ERROR(lexer_.finish());
    if (frames_.size() > 1) {
      return file_.error_at(frames_.back().line, fmt::format("'{}' is not closed (the file ends inside it)",
                                                             opener(frames_.back())));
    }
    if (frames_.back().state != State::Subject) return file_.error("the last statement is not finished (no '.')");
    return Status::OK();
  }

 private:
  enum class State { Subject, Predicate, Object, AfterObject, PrefixName, PrefixIri, BaseIri, DirectiveEnd };

  struct Frame {
    enum class Kind { Statement, Properties, Collection } kind = Kind::Statement;
    State state = State::Subject;
    RdfTerm subject, predicate;
    // In State::Predicate: the list may end here ('.' or ']'), and ';' may repeat.
    bool may_end = false, after_semicolon = false;
    bool any_predicate = false;  // Properties: [ p o ] rather than []
    std::uint64_t line = 0;      // of its '[' or '('
    bool empty = true;           // Collection: no item yet
    EntityId head = 0, last = 0; // Collection: its first and last cells
  };

  static char opener(const Frame& f) { return f.kind == Frame::Kind::Collection ? '(' : '['; }

  Status take(TurtleToken& t) {
    Frame& f = frames_.back();
    if (t.kind == Kind::Dot && frames_.size() > 1) {
      return file_.error(fmt::format("'.' inside the '{}' of line {} (not closed)", opener(f), f.line));
    }
    if (t.kind == Kind::CloseParen && f.kind != Frame::Kind::Collection) return file_.error("')' without '('");
    if (t.kind == Kind::CloseBracket && f.kind != Frame::Kind::Properties) return file_.error("']' without '['");
    if (f.kind == Frame::Kind::Collection) return collection_item(t);
    switch (f.state) {
      case State::Subject: {
        if (t.kind == Kind::Prefix || t.kind == Kind::Base) {
          sparql_directive_ = t.sparql;
          f.state = t.kind == Kind::Prefix ? State::PrefixName : State::BaseIri;
          return Status::OK();
        }
        if (t.kind == Kind::OpenBracket || t.kind == Kind::OpenParen) return open(t.kind);
        RdfTerm subject;
        DATALOG_RETURN_IF_ERROR(term(t, "a subject", &subject));
        if (subject.kind == RdfTerm::Kind::Literal) return file_.error("a literal cannot be a subject");
        return take_subject(f, std::move(subject), false);
      }
      case State::Predicate:
        if (f.may_end && t.kind == Kind::Dot) return end_statement();
        if (f.may_end && t.kind == Kind::CloseBracket) return close_properties();
        if (f.after_semicolon && t.kind == Kind::Semicolon) return Status::OK();
        if (t.kind == Kind::A) {
          f.predicate = rdf_iri("type");
        } else {
          DATALOG_RETURN_IF_ERROR(term(t, "a predicate", &f.predicate));
          if (f.predicate.kind != RdfTerm::Kind::Iri) return file_.error("a predicate must be an IRI");
        }
        f.any_predicate = true;
        f.state = State::Object;
        return Status::OK();
      case State::Object: {
        if (t.kind == Kind::OpenBracket || t.kind == Kind::OpenParen) return open(t.kind);
        RdfTerm object;
        DATALOG_RETURN_IF_ERROR(term(t, "an object", &object));
        return take_object(f, object);
      }
      case State::AfterObject:
        f.may_end = f.after_semicolon = false;
        if (t.kind == Kind::Comma) {
          f.state = State::Object;
        } else if (t.kind == Kind::Semicolon) {
          f.may_end = f.after_semicolon = true;
          f.state = State::Predicate;
        } else if (t.kind == Kind::Dot) {
          return end_statement();
        } else if (t.kind == Kind::CloseBracket) {
          return close_properties();
        } else {
          return file_.error(f.kind == Frame::Kind::Statement ? "expected '.', ';' or ',' after the object"
                                                              : "expected ']', ';' or ',' after the object");
        }
        return Status::OK();
      case State::PrefixName:
        if (t.kind != Kind::PrefixedName || t.name.back() != ':' || t.name.find(':') != t.name.size() - 1) {
          return file_.error("expected a prefix name ending in ':' after @prefix");
        }
        pending_prefix_ = t.name.substr(0, t.name.size() - 1);
        f.state = State::PrefixIri;
        return Status::OK();
      case State::PrefixIri:
        if (t.kind != Kind::Iri) return file_.error("expected <IRI> after the prefix name");
        prefixes_[pending_prefix_] = resolve(t.term.text);
        return directive_done(f);
      case State::BaseIri:
        if (t.kind != Kind::Iri) return file_.error("expected <IRI> after @base");
        base_ = resolve(t.term.text);
        return directive_done(f);
      case State::DirectiveEnd:
        if (t.kind != Kind::Dot) return file_.error("expected '.' after the directive");
        f.state = State::Subject;
        return Status::OK();
    }
    return Status::OK();
  }

  // A subject [ p o ] needs no predicate after it (`[ :p 1 ] .`); any other subject does.
  static Status take_subject(Frame& f, RdfTerm subject, bool may_end) {
    f.subject = std::move(subject);
    f.state = State::Predicate;
    f.may_end = may_end;
    f.after_semicolon = false;
    return Status::OK();
  }

  Status take_object(Frame& f, const RdfTerm& object) {
    DATALOG_RETURN_IF_ERROR(emit(f.subject, f.predicate, object));
    f.state = State::AfterObject;
    return Status::OK();
  }

  // '[' or '(' as a subject, an object or a collection's item.
  Status open(Kind kind) {
    Frame f;
    f.line = file_.line_number();
    if (kind == Kind::OpenParen) {
      f.kind = Frame::Kind::Collection;
    } else {
      f.kind = Frame::Kind::Properties;
      f.state = State::Predicate;
      f.may_end = true;  // [] is a blank node too
      EntityId id = 0;
      DATALOG_RETURN_IF_ERROR(target_.fresh_blank_node(&id));
      f.subject = node(id);
    }
    frames_.push_back(std::move(f));
    return Status::OK();
  }

  // The term a closed '[ ... ]' or '( ... )' stands for, where it was opened.
  Status closed(const RdfTerm& value, bool property_list) {
    Frame& f = frames_.back();
    if (f.kind == Frame::Kind::Collection) return add_item(f, value);
    if (f.state == State::Subject) return take_subject(f, value, property_list);
    return take_object(f, value);
  }

  Status close_properties() {
    const Frame f = std::move(frames_.back());
    frames_.pop_back();
    return closed(f.subject, f.any_predicate);
  }

  Status collection_item(TurtleToken& t) {
    if (t.kind == Kind::CloseParen) {
      const Frame f = std::move(frames_.back());
      frames_.pop_back();
      if (f.empty) return closed(rdf_iri("nil"), false);
      DATALOG_RETURN_IF_ERROR(emit(node(f.last), rdf_iri("rest"), rdf_iri("nil")));
      return closed(node(f.head), false);
    }
    if (t.kind == Kind::OpenBracket || t.kind == Kind::OpenParen) return open(t.kind);
    RdfTerm item;
    DATALOG_RETURN_IF_ERROR(term(t, "an object or ')' in the collection", &item));
    return add_item(frames_.back(), item);
  }

  // Each item is a new cell: [cell rdf:first item], linked from the one before by rdf:rest.
  Status add_item(Frame& f, const RdfTerm& item) {
    EntityId cell = 0;
    DATALOG_RETURN_IF_ERROR(target_.fresh_blank_node(&cell));
    if (f.empty) {
      f.head = cell;
    } else {
      DATALOG_RETURN_IF_ERROR(emit(node(f.last), rdf_iri("rest"), node(cell)));
    }
    f.empty = false;
    f.last = cell;
    DATALOG_RETURN_IF_ERROR(emit(node(cell), rdf_iri("first"), item));
    return target_.entity_done();  // a long list is written as it is read
  }

  Status directive_done(Frame& f) {
    f.state = sparql_directive_ ? State::Subject : State::DirectiveEnd;
    return Status::OK();
  }

  Status end_statement() {
    Frame& f = frames_.back();
    f.may_end = f.after_semicolon = false;
    f.state = State::Subject;
    return target_.entity_done();
  }

  std::string resolve(const std::string& iri) const { return resolve_iri(base_, iri); }

  Status expand(const std::string& name, std::string* iri) {
    const std::size_t colon = name.find(':');
    const auto it = prefixes_.find(name.substr(0, colon));
    if (it == prefixes_.end()) {
      return file_.error(fmt::format("undeclared prefix '{}:'", name.substr(0, colon)));
    }
    *iri = it->second + name.substr(colon + 1);
    return Status::OK();
  }

  Status term(TurtleToken& t, std::string_view what, RdfTerm* out) {
    switch (t.kind) {
      case Kind::Iri:
        *out = std::move(t.term);
        if (!resolves_to_itself(out->text)) out->text = resolve(out->text);
        return Status::OK();
      case Kind::Blank:
        *out = std::move(t.term);
        return Status::OK();
      case Kind::PrefixedName:
        out->kind = RdfTerm::Kind::Iri;
        return expand(t.name, &out->text);
      case Kind::Literal:
        *out = std::move(t.term);
        if (!t.name.empty()) return expand(t.name, &out->datatype);
        return Status::OK();
      default:
        return file_.error(fmt::format("expected {}", what));
    }
  }

  Status entity_value(const RdfTerm& t, Value* out) {
    if (t.kind == RdfTerm::Kind::Node) {
      *out = Value::ref(t.node);
      return Status::OK();
    }
    if (t.kind == RdfTerm::Kind::Blank) {
      EntityId id = 0;
      DATALOG_RETURN_IF_ERROR(target_.blank_node(t.text, &id));
      *out = Value::ref(id);
      return Status::OK();
    }
    *out = entity_of_iri(t.text);
    return Status::OK();
  }

  Status emit(const RdfTerm& subject, const RdfTerm& predicate, const RdfTerm& object) {
    ast::Fact f;
    f.pos = ast::SourcePos{static_cast<int>(file_.line_number()), 1};
    DATALOG_RETURN_IF_ERROR(entity_value(subject, &f.e));
    f.a = entity_of_iri(predicate.text);
    if (!f.a.is(ValueKind::Keyword)) {
      return file_.error(fmt::format("predicate <{}> names an entity, not an attribute", predicate.text));
    }
    if (object.kind == RdfTerm::Kind::Literal) {
      std::string error;
      auto v = literal_value(object.text, object.datatype, &error);
      if (!v) return file_.error(error);
      f.v = std::move(*v);
    } else {
      Value e;
      DATALOG_RETURN_IF_ERROR(entity_value(object, &e));
      if (e.is(ValueKind::Ref)) {
        f.v = std::move(e);
      } else if (e.is(ValueKind::Integer)) {
        f.v = Value::ref(e.as_integer());
      } else {
        EntityId id = 0;
        DATALOG_RETURN_IF_ERROR(target_.writer().resolve_ident(e, &id));
        f.v = Value::ref(id);
      }
    }
    target_.add(std::move(f));
    return Status::OK();
  }

  ImportTarget& target_;
  InputFile& file_;
  TurtleLexer lexer_;
  std::vector<Frame> frames_;  // frames_[0]: the statement
  bool sparql_directive_ = false;
  std::string pending_prefix_, base_;
  std::unordered_map<std::string, std::string> prefixes_;
};

}  // namespace

Status import_rdf(ImportTarget& target) { return TurtleReader(target).run(); }

}  // namespace datalog::ext::io
