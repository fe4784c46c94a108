# tessera_warnings(target): the warning level our own code is held to.
function(tessera_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()
