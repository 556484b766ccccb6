#pragma once

// The pages' template data as kainjow's mustache.hpp holds it, to compare the pages'
// renderer with the library it replaced.

#include <kainjow/mustache.hpp>

#include "mustache.h"

namespace kb::test {

inline kainjow::mustache::data to_kainjow(const pages::Data& d) {
  if (d.is_string()) return kainjow::mustache::data(d.string_value());
  if (d.is_true() || d.is_false()) return kainjow::mustache::data(d.is_true());
  if (d.is_list()) {
    kainjow::mustache::data out(kainjow::mustache::data::type::list);
    for (const pages::Data& item : d.list_value()) out.push_back(to_kainjow(item));
    return out;
  }
  kainjow::mustache::data out;
  for (const auto& m : d.members()) out.set(m.key, to_kainjow(m.value));
  return out;
}

}  // namespace kb::test
