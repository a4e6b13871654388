#ifndef NETRULES_CYAML_SHIM_H
#define NETRULES_CYAML_SHIM_H
// libyaml's event API; netrules wraps it in NetRulesConfig/YAML.
#include <yaml.h>
#endif
