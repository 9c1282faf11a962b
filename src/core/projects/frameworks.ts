/**
 * Well-known frameworks by the dependency that gives them away, per ecosystem. Order matters:
 * the first rule that matches wins, so meta-frameworks come before the libraries they build on
 * (next.js before react, nestjs before express). A pattern ending in `*` matches by prefix.
 */
import type { Ecosystem } from './manifests/types.js';

type FrameworkRule = readonly [pattern: string, framework: string];

const FRAMEWORK_RULES: Readonly<Record<Ecosystem, readonly FrameworkRule[]>> = {
  node: [
    ['next', 'next.js'],
    ['nuxt', 'nuxt'],
    ['@remix-run/*', 'remix'],
    ['@sveltejs/kit', 'sveltekit'],
    ['astro', 'astro'],
    ['gatsby', 'gatsby'],
    ['@nestjs/core', 'nestjs'],
    ['@angular/core', 'angular'],
    ['electron', 'electron'],
    ['express', 'express'],
    ['fastify', 'fastify'],
    ['koa', 'koa'],
    ['hono', 'hono'],
    ['react', 'react'],
    ['vue', 'vue'],
    ['svelte', 'svelte'],
    ['solid-js', 'solid'],
  ],
  php: [
    ['laravel/framework', 'laravel'],
    ['laravel/lumen-framework', 'lumen'],
    ['symfony/framework-bundle', 'symfony'],
    ['symfony/symfony', 'symfony'],
    ['drupal/core*', 'drupal'],
    ['cakephp/cakephp', 'cakephp'],
    ['yiisoft/yii2', 'yii'],
    ['slim/slim', 'slim'],
    ['laminas/laminas-mvc', 'laminas'],
  ],
  rust: [
    ['tauri', 'tauri'],
    ['leptos', 'leptos'],
    ['axum', 'axum'],
    ['actix-web', 'actix-web'],
    ['rocket', 'rocket'],
    ['warp', 'warp'],
    ['poem', 'poem'],
    ['bevy', 'bevy'],
  ],
  python: [
    ['django', 'django'],
    ['fastapi', 'fastapi'],
    ['flask', 'flask'],
    ['starlette', 'starlette'],
    ['tornado', 'tornado'],
    ['pyramid', 'pyramid'],
    ['streamlit', 'streamlit'],
  ],
  go: [
    ['github.com/gin-gonic/gin', 'gin'],
    ['github.com/labstack/echo*', 'echo'],
    ['github.com/gofiber/fiber*', 'fiber'],
    ['github.com/go-chi/chi*', 'chi'],
    ['github.com/gorilla/mux', 'gorilla'],
  ],
  jvm: [
    ['org.springframework.boot*', 'spring-boot'],
    ['io.quarkus*', 'quarkus'],
    ['io.micronaut*', 'micronaut'],
    ['io.ktor*', 'ktor'],
  ],
  ruby: [
    ['rails', 'rails'],
    ['sinatra', 'sinatra'],
    ['hanami', 'hanami'],
    ['roda', 'roda'],
  ],
};

function matches(pattern: string, dependency: string): boolean {
  return pattern.endsWith('*') ? dependency.startsWith(pattern.slice(0, -1)) : dependency === pattern;
}

/** The framework the dependencies reveal, or undefined when none is known. */
export function detectFramework(ecosystem: Ecosystem, dependencies: readonly string[]): string | undefined {
  const names = dependencies.map((name) => name.toLowerCase());
  for (const [pattern, framework] of FRAMEWORK_RULES[ecosystem]) {
    if (names.some((name) => matches(pattern, name))) return framework;
  }
  return undefined;
}
