# slicescope_set_warnings(target): the project's warning flags, errors with SLICESCOPE_WERROR.
function(slicescope_set_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -pedantic -Wshadow -Wnon-virtual-dtor>
        $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${SLICESCOPE_WERROR}>>:-Werror>)
endfunction()

# slicescope_embed_file(target file symbol): compiles FILE's bytes into TARGET as
# `std::string_view symbol()` in namespace slicescope::embedded, so programs need no data path.
function(slicescope_embed_file target file symbol)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp)
    add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -DINPUT=${file} -DOUTPUT=${out} -DSYMBOL=${symbol}
                -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
        DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/EmbedFile.cmake
        COMMENT "Embedding ${file}")
    target_sources(${target} PRIVATE ${out})
endfunction()
