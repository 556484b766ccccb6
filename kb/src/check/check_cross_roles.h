#pragma once

// What a predicate says across the services of one serving graph (check_cross_roles.cpp).

#include <string_view>
#include <vector>

#include "check/check_predicate.h"

namespace kb::check {

/// The services of a role; with `near`, only those of its serving graph (services read
/// together but not joined do not pair).
std::vector<const ServiceEnv*> with_role(const Env& env, std::string_view role,
                                         const ServiceEnv* near = nullptr);
/// Whether two services belong to one serving graph.
bool same_graph(const ServiceEnv& a, const ServiceEnv& b);
/// `differs: KEY`: whether prefill and decode of `s`'s graph differ in a setting.
Truth differs_key(const Test& k, const Env& env, const ServiceEnv& s);
/// `differs: {engine: E}`: whether they run different versions of an engine.
Truth differs_engine(const Node& n, const Env& env, const ServiceEnv& s);
/// `compare`: whether some value of one side compares as asked with one of the other.
Truth eval_compare(const Node& n, const Env& env, const ServiceEnv& s);

}  // namespace kb::check
